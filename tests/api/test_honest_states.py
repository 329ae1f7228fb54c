"""Honest states (issue 25 item 5): a denied call is stored and replayed as denied, and "Test
connection" gives up on a server that accepts and never answers."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired, ToolResultEvent, TurnFailed
from tests.api.conftest import VALID_KEY, AppMaker, Recorder, add_provider, ok, send


async def _approval(events: Recorder, turn_id: str) -> ApprovalRequired:
    await events.until(lambda: "approval_required" in events.types(turn_id))
    found: ApprovalRequired = next(
        e for e in events.events if isinstance(e, ApprovalRequired) and e.turn_id == turn_id
    )
    return found


async def test_a_denied_call_is_marked_denied_live_and_in_the_stored_chat(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": "notes.txt", "content": "hi"}},
                {"name": "read_file", "arguments": {"path": "a.txt"}},
                {"name": "read_file", "arguments": {"path": "missing.txt"}},
            ]
        },
        {"text": "Understood."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write a note", pid)
    approval = await _approval(events, turn)
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})
    assert (await events.turn_end(turn)).type == "turn_done"
    results = {e.name + ":" + e.call_id: e for e in events.of(ToolResultEvent)}
    denied = [e for e in results.values() if e.denied]
    assert [e.name for e in denied] == ["write_file"]
    messages = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    outcomes = [m["tool_outcome"] for m in messages if m["role"] == "tool"]
    assert outcomes == ["denied", "ok", "error"]
    assert all(m["tool_outcome"] is None for m in messages if m["role"] != "tool")


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A real TCP listener that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"


async def test_test_connection_gives_up_after_five_seconds_with_the_cause(
    make_app: AppMaker, silent_server: str
) -> None:
    app, _ = await make_app()
    view = await ok(
        app,
        "providers.save",
        {"name": "Silent", "kind": "chat_completions", "base_url": silent_server, "api_key": VALID_KEY},
    )
    result = await ok(app, "providers.test", {"provider_id": view["id"]})
    assert result["ok"] is False
    assert result["code"] == "timeout" and result["timeout_s"] == 5.0
    assert silent_server in result["message"] and "5 s" in result["message"]


async def test_a_refused_test_carries_the_provider_error_code(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions", key="wrong-key")
    result = await ok(app, "providers.test", {"provider_id": pid})
    assert result["ok"] is False and result["code"] == "auth"


async def test_provider_errors_carry_their_code_and_parameters(make_app: AppMaker, fake_llm: Any) -> None:
    """Issue 25 item 6: the UI words errors in its language from the code and parameters."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions", key="wrong-key")
    test = await ok(app, "providers.test", {"provider_id": pid})
    assert test["params"]["provider"] == "Fake chat_completions" and test["params"]["status"] == "401"
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid)
    end = await events.turn_end(turn)
    assert isinstance(end, TurnFailed)
    assert end.error.code == "auth"
    assert end.error.params["provider"] == "Fake chat_completions"
    assert end.error.params["host"].startswith("http://127.0.0.1:")
    listed = await ok(app, "models.list", {"provider_id": pid})
    assert listed["errors"][0]["params"]["provider_id"] == pid
