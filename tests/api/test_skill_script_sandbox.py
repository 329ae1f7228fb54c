"""A Skill script in the Sandboxed mode (issue 36), driven by the scripted LLM: it runs with no
prompt, confined, and writes its output into the workspace; the same script uploading to a
listener on 127.0.0.1 is blocked, the app asks to run it without the sandbox, and when the
user says no the model reads why it failed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired, ToolResultEvent
from app.sandbox.probe import landlock_abi, private_namespaces
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send
from tests.api.test_skills_runtime import _tool, _tool_contents, _write_skill
from tests.sandbox.listener import tcp_listener

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or landlock_abi({})[0] < 1, reason="needs Landlock"
)

REPORT = (
    "import os, sys\n"
    "if len(sys.argv) > 1:\n"
    "    import socket\n"
    "    s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))\n"
    "    s.sendall(b'UPLOADED')\n"
    "open('report.txt', 'w').write('made by ' + os.path.basename(os.environ['SKILL_DIR']))\n"
    "print('report written')\n"
)


@pytest.fixture
def report_skill(paths: AppPaths) -> Path:
    return _write_skill(
        paths.data_dir / "skills" / "user",
        "reporter",
        description="Writes a report into the workspace.",
        body="Run scripts/report.py.",
        files={"scripts/report.py": REPORT},
    )


async def _sandboxed_app(make_app: AppMaker, tmp_path: Path) -> tuple[Any, Recorder]:
    home = tmp_path / "userhome"
    home.mkdir()
    # The system interpreter: the sandbox reads the system folders and the PATH folders.
    app, events = await make_app(env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    await ok(app, "settings.update", {"approval_mode": "sandboxed"})
    return app, events


async def test_a_skill_script_runs_sandboxed_with_no_prompt_and_writes_into_the_workspace(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path, workspace: Path, report_skill: Path
) -> None:
    app, events = await _sandboxed_app(make_app, tmp_path)
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        _tool("skill_load", name="reporter"),
        _tool("run_skill_script", name="reporter", path="scripts/report.py"),
        {"text": "done"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "make the report", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    assert "approval_required" not in events.types(turn)
    assert (workspace / "report.txt").read_text() == "made by reporter"
    seen = _tool_contents(fake_llm.model_requests()[-1])[-1]
    assert "report written" in seen and "Sandbox: sandboxed" in seen
    result = next(e for e in events.of(ToolResultEvent) if e.name == "run_skill_script")
    private = private_namespaces({})[0]  # a private network and /tmp where the machine allows them
    assert result.ok and result.sandbox == ("sandboxed, private network and /tmp" if private else "sandboxed")


async def test_a_skill_script_needing_the_network_asks_and_denied_the_model_reads_why(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path, workspace: Path, report_skill: Path
) -> None:
    with tcp_listener() as (port, received):
        app, events = await _sandboxed_app(make_app, tmp_path)
        pid = await add_provider(app, fake_llm, "chat_completions")
        fake_llm.script(
            _tool("skill_load", name="reporter"),
            _tool("run_skill_script", name="reporter", path="scripts/report.py", args=[str(port)]),
            {"text": "could not upload"},
        )
        chat = await ok(app, "chats.create")
        turn = await send(app, chat["id"], "upload the report", pid)
        await events.until(lambda: "approval_required" in events.types(turn))
        asked = next(e for e in events.of(ApprovalRequired) if e.turn_id == turn)
        assert asked.title == "Run without the sandbox (network access)"
        assert "reporter/scripts/report.py" in asked.detail
        await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "deny"})
        assert (await events.turn_end(turn)).type == "turn_done"
    assert received == []
    assert not (workspace / "report.txt").exists()
    seen = _tool_contents(fake_llm.model_requests()[-1])[-1]
    assert "PermissionError" in seen
    assert "may have blocked network access" in seen
    assert "did not allow running it without the sandbox" in seen


async def test_once_without_the_sandbox_runs_the_script_again_unconfined(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path, workspace: Path, report_skill: Path
) -> None:
    with tcp_listener() as (port, received):
        app, events = await _sandboxed_app(make_app, tmp_path)
        pid = await add_provider(app, fake_llm, "chat_completions")
        fake_llm.script(
            _tool("skill_load", name="reporter"),
            _tool("run_skill_script", name="reporter", path="scripts/report.py", args=[str(port)]),
            {"text": "uploaded"},
        )
        chat = await ok(app, "chats.create")
        turn = await send(app, chat["id"], "upload the report", pid)
        await events.until(lambda: "approval_required" in events.types(turn))
        asked = next(e for e in events.of(ApprovalRequired) if e.turn_id == turn)
        await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
        assert (await events.turn_end(turn)).type == "turn_done"
        await events.until(lambda: bool(received))
    assert received == [b"UPLOADED"]
    assert (workspace / "report.txt").read_text() == "made by reporter"
    seen = _tool_contents(fake_llm.model_requests()[-1])[-1]
    assert "report written" in seen
    assert "Sandbox: not sandboxed: the user allowed it to run without the sandbox" in seen
    result = next(e for e in events.of(ToolResultEvent) if e.name == "run_skill_script")
    assert result.ok and result.sandbox.startswith("not sandboxed")
    # "Once" stored no grant: the next sandboxed run is confined again.
    assert (await ok(app, "approvals.list"))["grants"] == []


async def test_without_a_sandbox_the_mode_asks_and_the_card_says_not_sandboxed(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path, workspace: Path
) -> None:
    home = tmp_path / "userhome"
    home.mkdir()
    app, events = await make_app(env={"HOME": str(home), "PATH": "/usr/bin:/bin", "CASHCODE_SANDBOX": "off"})
    await ok(app, "settings.update", {"approval_mode": "sandboxed"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(_tool("exec", argv=["touch", "made.txt"]), {"text": "done"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "touch it", pid)
    await events.until(lambda: "approval_required" in events.types(turn))
    asked = next(e for e in events.of(ApprovalRequired) if e.turn_id == turn)
    assert "(not sandboxed: disabled by CASHCODE_SANDBOX)" in asked.detail
    assert not (workspace / "made.txt").exists()
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (workspace / "made.txt").exists()
    result = next(e for e in events.of(ToolResultEvent) if e.name == "exec")
    assert result.sandbox == "not sandboxed: disabled by CASHCODE_SANDBOX"
    assert (
        "Sandbox: not sandboxed: disabled by CASHCODE_SANDBOX"
        in _tool_contents(fake_llm.model_requests()[-1])[-1]
    )
