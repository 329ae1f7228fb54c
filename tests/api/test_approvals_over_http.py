"""Acceptance: write/exec ask first; Deny tells the model; Always grants the exact argv."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalRequired, ToolResultEvent
from app.core.tool_calls import DENIED_BY_USER
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send


async def _approval(events: Recorder, turn_id: str) -> ApprovalRequired:
    await events.until(lambda: "approval_required" in events.types(turn_id))
    found: ApprovalRequired = next(
        e for e in events.events if isinstance(e, ApprovalRequired) and e.turn_id == turn_id
    )
    return found


def _exec_step(code: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "exec", "arguments": {"argv": [sys.executable, "-c", code]}}]}


async def test_write_file_asks_and_a_denial_is_told_to_the_model_which_then_answers(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hi"}}]},
        {"text": "Understood, I did not write it."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write a note", pid)
    approval = await _approval(events, turn)
    assert approval.tool == "write_file" and "notes.txt" in approval.detail
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})
    end = await events.turn_end(turn)
    assert end.type == "turn_done"
    assert not (workspace / "notes.txt").exists()
    tool_messages = [m for m in fake_llm.model_requests()[1].body["messages"] if m["role"] == "tool"]
    assert tool_messages[0]["content"] == DENIED_BY_USER
    assert "denied" in tool_messages[0]["content"]


async def test_allow_once_runs_the_write_and_asks_again_next_time(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    write = {"tool_calls": [{"name": "write_file", "arguments": {"path": "n.txt", "content": "hi"}}]}
    fake_llm.script(write, {"text": "Written."})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write", pid)
    approval = await _approval(events, turn)
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (workspace / "n.txt").read_text() == "hi"
    assert (await ok(app, "approvals.list"))["grants"] == []


async def test_always_allow_grants_exactly_that_argv_until_revoked(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    same, other = "print('same')", "print('other')"

    async def turn_with(code: str) -> tuple[str, Any]:
        fake_llm.script(_exec_step(code), {"text": "ran"})
        turn = await send(app, chat["id"], f"run {code}", pid)
        return turn, events

    # 1. asks; Always
    turn, _ = await turn_with(same)
    approval = await _approval(events, turn)
    assert approval.can_always and approval.argv == [sys.executable, "-c", same]
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "always"})
    assert (await events.turn_end(turn)).type == "turn_done"
    grants = (await ok(app, "approvals.list"))["grants"]
    assert [g["key"] for g in grants] == [[sys.executable, "-c", same]]
    # 2. the same argv runs without asking
    turn, _ = await turn_with(same)
    assert (await events.turn_end(turn)).type == "turn_done"
    assert "approval_required" not in events.types(turn)
    result = next(e for e in events.events if isinstance(e, ToolResultEvent) and e.turn_id == turn)
    assert result.ok and "same" in result.output
    # 3. a different argv asks
    turn, _ = await turn_with(other)
    approval = await _approval(events, turn)
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})
    await events.turn_end(turn)
    # 4. after revoking, the first one asks again
    await ok(app, "approvals.revoke", {"grant_id": grants[0]["id"]})
    turn, _ = await turn_with(same)
    approval = await _approval(events, turn)
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})
    assert (await events.turn_end(turn)).type == "turn_done"
    last_tool = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "denied" in json.dumps(last_tool)
