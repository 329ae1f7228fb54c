"""A scheduled task in the Sandboxed mode (issue 36): its `exec` steps run confined with nothing
to approve; a step the sandbox blocks (the network) waits for the user's approval."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired
from app.sandbox.probe import landlock_abi
from app.tasks.events import TaskRunFinished
from tests.api.conftest import AppMaker, add_provider, ok
from tests.tasks.conftest import LOWERED, draft

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or landlock_abi({})[0] < 1, reason="needs Landlock"
)


def _exec(*argv: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "exec", "arguments": {"argv": list(argv)}}]}


async def _sandboxed_task(make_app: AppMaker, fake_llm: Any) -> tuple[Any, Any, dict[str, Any]]:
    app, events = await make_app(env={**LOWERED, "PATH": "/usr/bin:/bin"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    saved = await ok(
        app, "tasks.add", {"draft": draft(provider_id=pid, model="fake-model", approval_mode="sandboxed")}
    )
    return app, events, saved["task"]


async def test_a_sandboxed_task_runs_exec_steps_without_an_approval(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events, task = await _sandboxed_task(make_app, fake_llm)
    assert task["approval_mode"] == "sandboxed"
    fake_llm.script(
        _exec("/bin/sh", "-c", "echo built > out.txt; ls /usr/share > listing.txt"), {"text": "Built."}
    )
    run = await ok(app, "tasks.run", {"task_id": task["id"], "wait": True})
    assert run["status"] == "ok" and run["answer"] == "Built.", run
    assert (workspace / "out.txt").read_text() == "built\n"
    assert events.of(ApprovalRequired) == []
    tool_msg = next(m for m in fake_llm.model_requests()[1].body["messages"] if m["role"] == "tool")
    assert "Sandbox: sandboxed" in tool_msg["content"]


async def test_a_sandboxed_task_step_that_needs_the_network_waits_for_an_approval(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events, task = await _sandboxed_task(make_app, fake_llm)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        upload = f"import socket; socket.create_connection(('127.0.0.1', {server.getsockname()[1]}))"
        fake_llm.script(_exec("/usr/bin/python3", "-c", upload), {"text": "Could not upload."})
        started = await ok(app, "tasks.run", {"task_id": task["id"]})
        await events.until(lambda: bool(events.of(ApprovalRequired)))
        asked = events.of(ApprovalRequired)[0]
        assert asked.title == "Run without the sandbox (network access)"
        waiting = (await ok(app, "tasks.history", {"task_id": task["id"]}))["runs"][0]
        assert waiting["id"] == started["id"] and waiting["waiting_approval"] is True
        await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "deny"})
        await events.until(lambda: bool(events.of(TaskRunFinished)))
    done = (await ok(app, "tasks.history", {"task_id": task["id"]}))["runs"][0]
    assert done["status"] == "ok" and done["answer"] == "Could not upload."
