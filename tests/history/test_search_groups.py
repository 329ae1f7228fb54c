"""History search grouped per chat, with the version and date of each hit, text attachments
searched too, and a hit on an older version opened without changing the current one (issue 25
item 7), through the real app and the scripted LLM server."""

from __future__ import annotations

import base64
from typing import Any

from app.api.plugins import open_database
from app.attachments.store import AttachmentStore
from app.contracts.messages import AttachmentRef, Message
from app.store.chats import ChatRepository
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.attachments.helpers import pdf


async def _turn(app: Any, rec: Any, route: str, payload: dict[str, Any]) -> None:
    ref = await ok(app, route, payload)
    assert (await rec.turn_end(ref["turn_id"])).type == "turn_done"


async def _chat(app: Any, rec: Any, fake_llm: Any, pid: str, pairs: list[tuple[str, str]]) -> str:
    chat = await ok(app, "chats.create")
    for question, answer in pairs:
        fake_llm.script({"text": answer})
        assert (await rec.turn_end(await send(app, chat["id"], question, pid))).type == "turn_done"
    chat_id: str = chat["id"]
    return chat_id


def _text(hit: dict[str, Any]) -> str:
    return "".join(p["text"] for p in hit["parts"])


async def test_hits_are_grouped_per_chat_with_a_count_and_the_best_few(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    busy = await _chat(
        app,
        rec,
        fake_llm,
        pid,
        [("kiwi one", "kiwi answer one"), ("kiwi two", "kiwi answer two"), ("pear", "no")],
    )
    quiet = await _chat(app, rec, fake_llm, pid, [("a kiwi question", "nothing here")])

    found = await ok(app, "chats.search", {"query": "kiwi"})
    groups = found["groups"]
    assert [g["chat_id"] for g in groups] == [quiet, busy]  # the newest hit's chat first
    assert [g["hit_count"] for g in groups] == [1, 4] and not any(g["more"] for g in groups)
    assert len(groups[1]["hits"]) == 3  # the best three of four, newest first
    assert [_text(h) for h in groups[1]["hits"]] == ["kiwi answer two", "kiwi two", "kiwi answer one"]
    assert all(h["created_at"].startswith("20") and h["version"] is None for h in groups[1]["hits"])
    # `limit` counts chats.
    assert [
        g["chat_id"] for g in (await ok(app, "chats.search", {"query": "kiwi", "limit": 1}))["groups"]
    ] == [quiet]


async def test_a_hit_on_an_older_version_says_which_version_and_opens_without_switching(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat_id = await _chat(
        app, rec, fake_llm, pid, [("tell me a fruit", "mango is sweet"), ("more", "and ripe")]
    )
    answer = (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"][1]
    fake_llm.script({"text": "papaya is better"})
    await _turn(app, rec, "chat.regenerate", {"chat_id": chat_id, "cursor": answer["cursor"]})
    current = await ok(app, "chats.get", {"chat_id": chat_id})
    assert [m["content"] for m in current["messages"]] == ["tell me a fruit", "papaya is better"]
    assert current["chat"]["message_count"] == 2  # 5 rows are stored; the chat shows 2

    [group] = (await ok(app, "chats.search", {"query": "mango"}))["groups"]
    [old] = group["hits"]
    assert old["cursor"] == answer["cursor"]
    assert old["version"] == {"index": 1, "count": 2, "cursor": answer["cursor"]}
    later = (await ok(app, "chats.search", {"query": "ripe"}))["groups"][0]["hits"][0]
    assert later["version"] == {"index": 1, "count": 2, "cursor": answer["cursor"]}  # below the fork
    new = (await ok(app, "chats.search", {"query": "papaya"}))["groups"][0]["hits"][0]
    assert new["version"] is None

    # Opening the old hit shows its version; the chat's current version is not changed.
    shown = await ok(app, "chats.get", {"chat_id": chat_id, "through": old["cursor"]})
    assert [m["content"] for m in shown["messages"]] == [
        "tell me a fruit",
        "mango is sweet",
        "more",
        "and ripe",
    ]
    assert shown["viewing"] == {
        "cursor": answer["cursor"],
        "index": 1,
        "count": 2,
        "leaf": shown["messages"][-1]["cursor"],
    }
    again = await ok(app, "chats.get", {"chat_id": chat_id})
    assert [m["content"] for m in again["messages"]] == ["tell me a fruit", "papaya is better"]
    assert again["viewing"] is None
    # A message on the current path: the current path, nothing to say.
    assert (await ok(app, "chats.get", {"chat_id": chat_id, "through": 1}))["viewing"] is None
    assert (await err(app, "chats.get", {"chat_id": chat_id, "through": 999}))["code"] == "not_found"


async def test_text_and_pdf_attachments_are_searched_and_named(
    make_app: AppMaker, fake_llm: Any, paths: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    notes = b"Shopping list:\nzebra crossing paint\nmore lines"
    text_ref = await ok(
        app,
        "attachments.upload",
        {"name": "notes.txt", "mime": "text/plain", "data_base64": base64.b64encode(notes).decode()},
    )
    pdf_ref = await ok(
        app,
        "attachments.upload",
        {"name": "report.pdf", "data_base64": base64.b64encode(pdf("Quokka census")).decode()},
    )
    chat = await ok(app, "chats.create")
    fake_llm.script({"text": "Noted."})
    ref = await ok(
        app,
        "chat.send",
        {
            "chat_id": chat["id"],
            "text": "See the files",
            "model": {"provider_id": pid, "model": "fake-model"},
            "attachments": [text_ref, pdf_ref],
        },
    )
    assert (await rec.turn_end(ref["turn_id"])).type == "turn_done"

    [group] = (await ok(app, "chats.search", {"query": "zebra crossing"}))["groups"]
    [hit] = group["hits"]
    assert hit["attachment"] == "notes.txt" and hit["cursor"] == 1 and hit["role"] == "user"
    assert [p["text"] for p in hit["parts"] if p["hit"]] == ["zebra", "crossing"]
    [pdf_hit] = (await ok(app, "chats.search", {"query": "quokka"}))["groups"][0]["hits"]
    assert pdf_hit["attachment"] == "report.pdf"

    # A file that came without an upload (an imported or older chat) is indexed by the next search.
    files = AttachmentStore(paths.data_dir / "attachments")
    digest = files.put(b"the wombat manifest")
    late = AttachmentRef(sha256=digest, name="late.md", mime="text/markdown", size=19, kind="text")
    with open_database(paths.db_path) as db:
        ChatRepository(db).append_turn(
            chat["id"], "turn-late", [Message(role="user", content="x", attachments=(late,))]
        )
    [late_hit] = (await ok(app, "chats.search", {"query": "wombat"}))["groups"][0]["hits"]
    assert late_hit["attachment"] == "late.md"

    # Deleting the chat removes its file hits too.
    await ok(app, "chats.delete", {"chat_id": chat["id"]})
    assert (await ok(app, "chats.search", {"query": "zebra"}))["groups"] == []
