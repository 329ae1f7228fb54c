"""Search across chats, export as Markdown/JSON and import back, through the real app."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from app.api.plugins import open_database
from app.attachments.store import AttachmentStore
from app.contracts.messages import AttachmentRef, Message
from app.store.chats import ChatRepository
from tests.api.conftest import AppMaker, add_provider, err, ok, send

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


async def _chat_with(app: Any, rec: Any, fake_llm: Any, pid: str, pairs: list[tuple[str, str]]) -> str:
    chat = await ok(app, "chats.create")
    for question, answer in pairs:
        fake_llm.script({"text": answer})
        turn = await send(app, chat["id"], question, pid)
        assert (await rec.turn_end(turn)).type == "turn_done"
    chat_id: str = chat["id"]
    return chat_id


def _text(hit: dict[str, Any]) -> str:
    return "".join(p["text"] for p in hit["parts"])


def _hits(found: dict[str, Any]) -> list[dict[str, Any]]:
    """Every hit of a grouped answer, chat by chat."""
    return [hit for group in found["groups"] for hit in group["hits"]]


def _marked(hit: dict[str, Any]) -> list[str]:
    return [p["text"] for p in hit["parts"] if p["hit"]]


async def test_search_finds_english_and_chinese_phrases_across_three_chats(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    a = await _chat_with(
        app, rec, fake_llm, pid, [("How do I parse YAML?", "Use a safe loader for YAML files.")]
    )
    b = await _chat_with(app, rec, fake_llm, pid, [("今天天气很好吗？", "是的，今天天气很好，适合散步。")])
    c = await _chat_with(
        app,
        rec,
        fake_llm,
        pid,
        [("hello", "hi"), ("Tell me about the Quarterly Report", "The quarterly report is due.")],
    )

    english = _hits(await ok(app, "chats.search", {"query": "quarterly report"}))
    assert {h["chat_id"] for h in english} == {c}
    assert {h["role"] for h in english} == {"user", "assistant"}
    assistant = next(h for h in english if h["role"] == "assistant")
    assert _text(assistant) == "The quarterly report is due."
    assert _marked(assistant) == ["quarterly", "report"]
    # The hit names the message to open: the chat's 4th message (after hello/hi and the question).
    assert assistant["cursor"] == 4

    chinese = _hits(await ok(app, "chats.search", {"query": "天气很好"}))
    assert {h["chat_id"] for h in chinese} == {b} and len(chinese) == 2
    assert all(_marked(h) == ["天气很好"] for h in chinese)
    # Two characters are below the trigram index: still found (scan fallback).
    short = _hits(await ok(app, "chats.search", {"query": "散步"}))
    assert [(h["chat_id"], h["cursor"]) for h in short] == [(b, 2)]

    assert _hits(await ok(app, "chats.search", {"query": "YAML"}))[0]["chat_id"] == a
    assert _hits(await ok(app, "chats.search", {"query": "no such words anywhere"})) == []
    # FTS syntax in the query is inert text, never an error.
    assert _hits(await ok(app, "chats.search", {"query": 'report" OR *'})) == []
    assert (await err(app, "chats.search", {"query": ""}))["code"] == "invalid"


async def test_export_and_import_round_trip_a_chat_with_tools_and_attachments(
    make_app: AppMaker, fake_llm: Any, paths: Any
) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    chat_id = await _chat_with(app, rec, fake_llm, pid, [("Say hi", "Hi! 你好")])
    fake_llm.script(
        {"tool_calls": [{"name": "list_dir", "arguments": {"path": "."}}]},
        {"text": "The folder is empty."},
    )
    turn = await send(app, chat_id, "What is in my workspace?", pid)
    assert (await rec.turn_end(turn)).type == "turn_done"
    # A message with an image attachment, stored as the app stores them.
    files = AttachmentStore(paths.data_dir / "attachments")
    digest = files.put(PNG)
    assert (paths.data_dir / "attachments" / digest[:2] / digest).read_bytes() == PNG
    ref = AttachmentRef(sha256=digest, name="dot.png", mime="image/png", size=len(PNG), kind="image")
    with open_database(paths.db_path) as db:
        ChatRepository(db).append_turn(
            chat_id,
            "turn-att",
            [
                Message(role="user", content="Look", attachments=(ref,)),
                Message(role="assistant", content="A dot."),
            ],
        )

    # Branches: an edit of the first question (a second first message) and a regenerated
    # answer on it; then the original branch is made active again.
    fake_llm.script({"text": "Edited hello"})
    edit = await ok(app, "chat.edit", {"chat_id": chat_id, "cursor": 1, "text": "Say hello instead"})
    assert (await rec.turn_end(edit["turn_id"])).type == "turn_done"
    fake_llm.script({"text": "Regenerated hello"})
    regen = await ok(app, "chat.regenerate", {"chat_id": chat_id, "cursor": 10})
    assert (await rec.turn_end(regen["turn_id"])).type == "turn_done"
    branch_view = await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": 11})
    assert [m["content"] for m in branch_view["messages"]] == ["Say hello instead", "Regenerated hello"]
    assert branch_view["messages"][1]["siblings"] == [10, 11]
    await ok(app, "chats.switch_branch", {"chat_id": chat_id, "cursor": 1})

    md = await ok(app, "chats.export", {"chat_id": chat_id, "format": "md"})
    assert "Say hello instead" not in md["content"]  # Markdown prints the active path only
    assert md["filename"].endswith(".md") and md["mime"] == "text/markdown"
    assert "## You" in md["content"] and "Hi! 你好" in md["content"]
    assert "**Tool call** `list_dir`" in md["content"] and "dot.png" in md["content"]

    exported = await ok(app, "chats.export", {"chat_id": chat_id, "format": "json"})
    doc = json.loads(exported["content"])
    assert doc["format"] == "cashcode.chat" and hashlib.sha256(PNG).hexdigest() in doc["attachments"]

    before = await ok(app, "chats.get", {"chat_id": chat_id})
    # The chat still exists, so the import is a copy with a new id and the same messages.
    copy = await ok(app, "chats.import", {"content": exported["content"]})
    assert copy["id"] != chat_id and copy["title"] == before["chat"]["title"]
    after = await ok(app, "chats.get", {"chat_id": copy["id"]})
    assert after["messages"] == before["messages"]
    assert any(m["tool_calls"] for m in after["messages"]) and any(
        m["role"] == "tool" for m in after["messages"]
    )
    assert after["messages"][0]["siblings"] == [1, 9]
    assert (await ok(app, "chats.switch_branch", {"chat_id": copy["id"], "cursor": 11})) == {
        **branch_view,
        "chat": (await ok(app, "chats.get", {"chat_id": copy["id"]}))["chat"],
    }

    # Deleted, then imported again: restored under its own id, bytes restored too.
    await ok(app, "chats.delete", {"chat_id": chat_id})
    (paths.data_dir / "attachments" / digest[:2] / digest).unlink()
    restored = await ok(app, "chats.import", {"content": exported["content"]})
    assert restored["id"] == chat_id and restored["message_count"] == before["chat"]["message_count"]
    assert files.read(digest) == PNG
    assert (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"] == before["messages"]


async def test_a_damaged_import_is_refused_and_changes_nothing(make_app: AppMaker, fake_llm: Any) -> None:
    app, rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat_id = await _chat_with(app, rec, fake_llm, pid, [("q", "a")])
    good = json.loads((await ok(app, "chats.export", {"chat_id": chat_id, "format": "json"}))["content"])
    await ok(app, "chats.delete", {"chat_id": chat_id})

    cases: list[tuple[str, str]] = [
        ("not json", "not JSON"),
        (json.dumps({"format": "other"}), "not a CashCode chat export"),
        (json.dumps({**good, "version": 99}), "unsupported export version"),
        (
            json.dumps({**good, "messages": [{**good["messages"][0], "role": "wizard"}]}),
            "damaged at messages.0.role",
        ),
        (json.dumps({**good, "messages": good["messages"][::-1]}), "cursors"),
    ]
    with_att = {
        **good,
        "messages": [
            {
                **good["messages"][0],
                "attachments": [
                    {"sha256": "a" * 64, "name": "x.png", "mime": "image/png", "size": 3, "kind": "image"}
                ],
            }
        ],
    }
    cases.append((json.dumps(with_att), "missing from the export"))
    cases.append((json.dumps({**with_att, "attachments": {"a" * 64: "eHl6"}}), "does not match its digest"))
    for content, reason in cases:
        error = await err(app, "chats.import", {"content": content})
        assert error["code"] == "invalid" and reason in error["message"], (reason, error)
    assert (await ok(app, "chats.list"))["chats"] == []


async def test_the_desktop_saves_exports_into_the_downloads_folder_without_replacing_files(
    make_app: AppMaker, fake_llm: Any, tmp_path: Any
) -> None:
    downloads = tmp_path / "Downloads"
    app, rec = await make_app(env={"CASHCODE_EXPORT_DIR": str(downloads)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat_id = await _chat_with(app, rec, fake_llm, pid, [("Weekly plan: 周报", "ok")])
    first = await ok(app, "chats.export", {"chat_id": chat_id, "format": "md", "save_to_downloads": True})
    second = await ok(app, "chats.export", {"chat_id": chat_id, "format": "md", "save_to_downloads": True})
    assert first["filename"] == "Weekly-plan-周报.md"
    assert first["saved_path"] == str(downloads / "Weekly-plan-周报.md")
    assert second["saved_path"] == str(downloads / "Weekly-plan-周报 (2).md")
    assert sorted(p.name for p in downloads.iterdir()) == ["Weekly-plan-周报 (2).md", "Weekly-plan-周报.md"]
    assert (downloads / "Weekly-plan-周报.md").read_text(encoding="utf-8") == first["content"]





async def test_the_window_saves_a_diagram_or_artifact_into_downloads_and_refuses_bad_names(
    make_app: AppMaker, tmp_path: Any
) -> None:
    """Issue 27: the desktop window cannot download, so the UI's SVG/PNG/artifact files are saved
    by the backend into Downloads, under a plain name, never replacing a file."""
    downloads = tmp_path / "Downloads"
    app, _ = await make_app(env={"CASHCODE_EXPORT_DIR": str(downloads)})
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    first = await ok(
        app,
        "files.save_download",
        {"filename": "diagram.png", "content": base64.b64encode(png).decode(), "base64": True},
    )
    second = await ok(app, "files.save_download", {"filename": "diagram.png", "content": "<svg/>"})
    assert first["saved_path"] == str(downloads / "diagram.png")
    assert (downloads / "diagram.png").read_bytes() == png
    assert second["saved_path"] == str(downloads / "diagram (2).png")
    for bad in (
        {"filename": "../escape.svg", "content": "x"},
        {"filename": "a/b.svg", "content": "x"},
        {"filename": ".hidden", "content": "x"},
        {"filename": "", "content": "x"},
        {"filename": "x.png", "content": "not base64!", "base64": True},
    ):
        error = await err(app, "files.save_download", bad)
        assert error["code"] == "invalid", bad
    assert sorted(p.name for p in downloads.iterdir()) == ["diagram (2).png", "diagram.png"]
    assert not (tmp_path / "escape.svg").exists()
