"""Approvals mean what they say: "always" where it was not offered is refused, not run once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalRequired
from tests.api.conftest import AppMaker, add_provider, err, ok, send


async def test_always_where_not_offered_is_refused_and_the_request_stays_pending(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "n.txt", "content": "hi"}}]},
        {"text": "done"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write", pid)
    await events.until(lambda: "approval_required" in events.types(turn))
    approval = next(e for e in events.events if isinstance(e, ApprovalRequired) and e.turn_id == turn)
    assert approval.can_always is False
    error = await err(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "always"})
    assert error["code"] == "invalid" and "not offered" in error["message"]
    assert not (workspace / "n.txt").exists()
    assert "approval_resolved" not in events.types(turn)
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert not (workspace / "n.txt").exists()
    assert (await ok(app, "approvals.list"))["grants"] == []


async def test_unknown_argument_names_are_refused_with_the_schema_names(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt", "offsett": 3}}]},
        {"text": "ok"},
    )
    (workspace / "a.txt").write_text("hello\n")
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "read", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    tool_messages = [m for m in fake_llm.model_requests()[1].body["messages"] if m["role"] == "tool"]
    content = tool_messages[0]["content"]
    assert "Unknown argument(s): offsett" in content and "path" in content and "hello" not in content


def test_every_builtin_tool_schema_is_closed() -> None:
    from app.tools.registry import builtin_tools

    for tool in builtin_tools():
        assert tool.parameters.get("additionalProperties") is False, tool.name
        assert set(tool.parameters.get("required", [])) <= set(tool.parameters["properties"]), tool.name
