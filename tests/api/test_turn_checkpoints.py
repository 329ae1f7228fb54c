"""A turn's checkpoint exists only while one of its questions waits (issue 35 item 3): written
before the question is announced, with the turn's messages so far and the finished sibling
results, and gone however the turn ends. It never shows in the chat's history."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

from app.api.app import CashCodeApp
from app.api.bootstrap import build_app
from app.contracts.checkpoint import TurnCheckpoint
from app.contracts.events import ApprovalRequired
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send

WRITE = {"name": "write_file", "arguments": {"path": "n.txt", "content": "hi"}}


def _checkpoints(app: CashCodeApp) -> list[TurnCheckpoint]:
    with sqlite3.connect(app.ctx.paths.db_path) as db:
        rows = db.execute("SELECT body FROM turn_checkpoints").fetchall()
    return [TurnCheckpoint.model_validate_json(r[0]) for r in rows]


async def _asked(events: Recorder, turn_id: str) -> ApprovalRequired:
    await events.until(lambda: "approval_required" in events.types(turn_id))
    found: ApprovalRequired = next(e for e in events.of(ApprovalRequired) if e.turn_id == turn_id)
    return found


async def test_the_checkpoint_holds_the_turn_so_far_while_the_question_waits_and_goes_when_it_ends(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    await ok(app, "settings.update", {"tool_policies": {"exec": "always"}})
    pid = await add_provider(app, fake_llm, "chat_completions")
    run = {"name": "exec", "arguments": {"argv": [sys.executable, "-c", "print('ran')"]}}
    fake_llm.script({"text": "Two steps.", "tool_calls": [run, WRITE]}, {"text": "Done."})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "go", pid)
    asked = await _asked(events, turn)
    await events.until(lambda: "tool_result" in events.types(turn))
    [cp] = _checkpoints(app)
    assert (cp.chat_id, cp.turn_id, cp.provider_id, cp.user_text) == (chat["id"], turn, pid, "go")
    assert [m.role for m in cp.progress.messages] == ["user", "assistant"]
    assert [c.name for c in cp.progress.messages[-1].tool_calls] == ["exec", "write_file"]
    assert [w.approval_id for w in cp.progress.waiting] == [asked.approval_id]
    assert cp.progress.waiting[0].tool == "write_file" and cp.progress.steps == 1
    assert [m.name for m in cp.progress.done] == ["exec"]
    assert "ran" in cp.progress.done[0].content
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []

    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert _checkpoints(app) == []
    assert (workspace / "n.txt").read_text() == "hi"


async def test_stop_and_deny_leave_no_checkpoint(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")

    fake_llm.script({"tool_calls": [WRITE]}, {"text": "unused"})
    stopped = await send(app, chat["id"], "write", pid)
    await _asked(events, stopped)
    assert len(_checkpoints(app)) == 1
    await ok(app, "chat.cancel", {"chat_id": chat["id"]})
    assert (await events.turn_end(stopped)).type == "turn_cancelled"
    await app.lane.write(lambda: None)  # forgotten in the background of the Stop: after it
    assert _checkpoints(app) == []

    fake_llm.reset()
    fake_llm.script({"tool_calls": [WRITE]}, {"text": "Not written."})
    denied = await send(app, chat["id"], "write", pid)
    asked = await _asked(events, denied)
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "deny"})
    assert (await events.turn_end(denied)).type == "turn_done"
    assert _checkpoints(app) == []


async def test_two_questions_saved_at_a_quit_one_answer_continues_and_the_other_is_asked_again(
    make_app: AppMaker, fake_llm: Any, workspace: Path, paths: AppPaths, secrets: SecretStore
) -> None:
    first = build_app(paths, {}, workspace=workspace, secrets=secrets)
    seen = Recorder()
    first.subscribe(seen)
    pid = await add_provider(first, fake_llm, "chat_completions")
    two = [
        {"name": "write_file", "arguments": {"path": "a.txt", "content": "a"}},
        {"name": "write_file", "arguments": {"path": "b.txt", "content": "b"}},
    ]
    fake_llm.script({"tool_calls": two}, {"text": "Both written."})
    chat = await ok(first, "chats.create")
    turn = await send(first, chat["id"], "write both", pid)
    await seen.until(lambda: events_count(seen, turn, "approval_required") == 2)
    await first.aclose()  # a quit while both wait

    app, events = await make_app()
    await app.start_background()
    restored = (await ok(app, "inbox.list"))["items"]
    assert len(restored) == 2
    assert all(i["resumable"] and i["status"] == "pending" for i in restored)
    by_file = {("a.txt" if "a.txt" in i["detail"] else "b.txt"): i for i in restored}
    await ok(app, "inbox.answer", {"id": by_file["a.txt"]["id"], "decision": "once"})
    await events.until(lambda: bool(events.of(ApprovalRequired)))
    again = events.of(ApprovalRequired)[0]
    assert again.turn_id == turn and "b.txt" in again.detail and again.approval_id != by_file["b.txt"]["id"]
    shown = {i["id"]: i["status"] for i in (await ok(app, "inbox.list", {"include_answered": True}))["items"]}
    assert shown[by_file["a.txt"]["id"]] == "answered"
    assert shown[by_file["b.txt"]["id"]] == "cancelled"  # asked again as a new item
    await ok(app, "chat.approve", {"approval_id": again.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (workspace / "a.txt").read_text() == "a" and (workspace / "b.txt").read_text() == "b"
    assert len(fake_llm.model_requests()) == 2
    roles = [m["role"] for m in (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"]
    assert _checkpoints(app) == []


def events_count(recorder: Recorder, turn_id: str, kind: str) -> int:
    return recorder.types(turn_id).count(kind)


async def test_a_restored_question_is_not_taken_while_its_turn_cannot_go_on(
    make_app: AppMaker, fake_llm: Any, workspace: Path, paths: AppPaths, secrets: SecretStore
) -> None:
    first = build_app(paths, {}, workspace=workspace, secrets=secrets)
    seen = Recorder()
    first.subscribe(seen)
    pid = await add_provider(first, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [WRITE]}, {"text": "A slow other turn. " * 40, "chunk_size": 1, "delay_s": 0.02}
    )
    chat = await ok(first, "chats.create")
    turn = await send(first, chat["id"], "write", pid)
    await seen.until(lambda: "approval_required" in seen.types(turn))
    await first.aclose()

    app, events = await make_app()
    await app.start_background()
    [item] = (await ok(app, "inbox.list"))["items"]
    # The chat runs another turn: the answer is refused and changes nothing.
    other = await send(app, chat["id"], "meanwhile", pid)
    await events.until(lambda: "delta" in events.types(other))
    busy = await app.invoke("inbox.answer", {"id": item["id"], "decision": "once"})
    assert busy["ok"] is False and busy["error"]["key"] == "approval.resume_busy", busy
    await ok(app, "chat.cancel", {"chat_id": chat["id"]})
    await events.turn_end(other)
    # Its provider was removed: the answer gets that error and changes nothing.
    await ok(app, "providers.delete", {"provider_id": pid})
    gone = await app.invoke("inbox.answer", {"id": item["id"], "decision": "once"})
    assert gone["ok"] is False and gone["error"]["code"] == "not_found", gone
    [still] = (await ok(app, "inbox.list"))["items"]
    assert still["id"] == item["id"] and still["status"] == "pending"
    assert len(_checkpoints(app)) == 1
    assert not (workspace / "n.txt").exists()
