"""A lazy chat (`chats.create {lazy: true}`, used by `cashcode ask`) is stored with its first
completed turn, so an interrupted or failed first turn leaves no empty chat."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import AppMaker, add_provider, ok, send


async def test_a_lazy_chat_appears_with_its_first_turn(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create", {"lazy": True})
    assert (await ok(app, "chats.list"))["chats"] == []
    fake_llm.script({"text": "hi there"})
    turn = await send(app, chat["id"], "hello", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    listed = (await ok(app, "chats.list"))["chats"]
    assert [c["id"] for c in listed] == [chat["id"]]
    messages = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]


async def test_a_lazy_chat_whose_first_turn_fails_leaves_nothing(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create", {"lazy": True})
    fake_llm.script({"error": 401})
    turn = await send(app, chat["id"], "hello", pid)
    assert (await events.turn_end(turn)).type == "turn_failed"
    assert (await ok(app, "chats.list"))["chats"] == []
