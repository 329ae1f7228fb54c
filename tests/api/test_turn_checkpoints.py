"""A turn's checkpoint exists only while one of its questions waits (issue 35 item 3): written
before the question is announced, with the turn's messages so far and the finished sibling
results, and gone however the turn ends. It never shows in the chat's history."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

from app.api.app import CashCodeApp
from app.contracts.checkpoint import TurnCheckpoint
from app.contracts.events import ApprovalRequired
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
