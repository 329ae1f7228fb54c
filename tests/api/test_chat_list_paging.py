"""`chats.list` pages (keyset `before` / `next_before`), filters by title and keeps `{}` valid."""

from __future__ import annotations

from app.contracts.messages import Message
from tests.api.conftest import AppMaker, err, ok


async def test_pages_walk_every_chat_once_with_activity_of_the_page(make_app: AppMaker) -> None:
    app, _ = await make_app()
    made = [(await ok(app, "chats.create", {"title": f"chat {i}"}))["id"] for i in range(7)]
    turn = [Message(role="user", content="q"), Message(role="assistant", content="a")]
    app.ctx.chats.append_turn(made[2], "t1", turn)
    first = await ok(app, "chats.list", {"limit": 3})
    assert [c["id"] for c in first["chats"]] == [made[2], made[6], made[5]]
    assert first["chats"][0]["message_count"] == 2 and first["chats"][1]["message_count"] == 0
    second = await ok(app, "chats.list", {"limit": 3, "before": first["next_before"]})
    third = await ok(app, "chats.list", {"limit": 3, "before": second["next_before"]})
    assert [c["id"] for c in second["chats"] + third["chats"]] == [made[4], made[3], made[1], made[0]]
    assert third["next_before"] is None
    everything = await ok(app, "chats.list")  # the old request shape: the first (default) page
    assert len(everything["chats"]) == 7 and everything["next_before"] is None


async def test_title_filter_and_bad_page_keys(make_app: AppMaker) -> None:
    app, _ = await make_app()
    for title in ("Trip to Rome", "Groceries", "rome again"):
        await ok(app, "chats.create", {"title": title})
    found = await ok(app, "chats.list", {"title": " ROME "})
    assert sorted(c["title"] for c in found["chats"]) == ["Trip to Rome", "rome again"]
    for bad in ("garbage", "2026-01-01T00:00:00Z|not-a-uuid", "x|00000000-0000-4000-8000-000000000000"):
        assert (await err(app, "chats.list", {"before": bad}))["code"] == "invalid"
    assert (await err(app, "chats.list", {"limit": 0}))["code"] == "invalid"
    assert (await err(app, "chats.list", {"limit": 501}))["code"] == "invalid"
