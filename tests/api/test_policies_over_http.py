"""Approval modes and tool policies as the model experiences them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.contracts.events import TurnDone
from tests.api.conftest import AppMaker, add_provider, ok, send


def _tool_contents(fake_llm: Any) -> list[str]:
    return [m["content"] for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"]


async def test_read_only_mode_refuses_writes_without_asking_and_tells_the_model(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    await ok(app, "settings.update", {"approval_mode": "read_only"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
        {"text": "Read-only, so I did not write."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    assert "approval_required" not in events.types(turn)
    assert "read-only" in _tool_contents(fake_llm)[0]
    assert not (workspace / "x.txt").exists()


async def test_autonomous_mode_runs_writes_without_asking(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
        {"text": "Done."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    assert "approval_required" not in events.types(turn)
    assert (workspace / "x.txt").read_text() == "x"


async def test_the_iteration_limit_from_settings_ends_the_turn_with_a_note(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a")
    app, events = await make_app()
    await ok(app, "settings.update", {"max_iterations": 2})
    pid = await add_provider(app, fake_llm, "chat_completions")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    fake_llm.script(read, read, {"text": "never reached"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "loop", pid)
    end = await events.turn_end(turn)
    assert isinstance(end, TurnDone) and "Stopped after 2 model steps" in end.text
    assert len(fake_llm.model_requests()) == 2
