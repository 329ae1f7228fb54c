"""Confined programs with the private network and /tmp are forked by one long-lived zygote per
app process (app/sandbox/zygote.py, docs/decisions.md 510–514), not started through a Python
launcher each: the exit status, the timeout's kill and the fallback still work."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from app.contracts.tools import SandboxSpec, ToolContext
from app.sandbox import zygote_client
from app.sandbox.probe import landlock_abi, private_namespaces
from app.tools.confined import run_confined
from app.tools.process import ProcessOutcome

pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or landlock_abi({})[0] < 1, reason="needs Landlock"
    ),
    pytest.mark.skipif(not private_namespaces({})[0], reason="needs user namespaces (or root)"),
]

PARENT = ["/bin/sh", "-c", "echo parent=$PPID; echo x > /tmp/mine && cat /tmp/mine"]


def _run(ws: Path, argv: list[str], timeout: float = 60) -> ProcessOutcome:
    ctx = ToolContext(workspace=ws, sandbox=SandboxSpec(True, "Landlock", namespaces=True))
    return asyncio.run(
        run_confined(argv, cwd=ws, env={"PATH": "/usr/bin:/bin"}, timeout=timeout, cap=65536, ctx=ctx)
    )


def _parent(outcome: ProcessOutcome) -> int:
    text = outcome.stdout.data.decode()
    assert outcome.returncode == 0 and "x\n" in text, (outcome, outcome.stderr.data)
    return int(text.split("parent=")[1].split()[0])


def _threads(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("Threads:")[1].split()[0])


def test_programs_are_forked_by_one_single_threaded_zygote_not_the_app(tmp_path: Path) -> None:
    first, second = _parent(_run(tmp_path, PARENT)), _parent(_run(tmp_path, PARENT))
    assert first == second != os.getpid()  # the same zygote both times, not a launcher per program
    zygote = zygote_client.SHARED.current()
    assert zygote is not None and zygote.pid == first
    assert "zygote" in Path(f"/proc/{first}/cmdline").read_text()
    assert _threads(first) == 1  # it could not enter namespaces with a second thread


def test_the_exit_status_and_the_timeouts_kill_come_through_the_zygote(tmp_path: Path) -> None:
    assert _run(tmp_path, ["/bin/sh", "-c", "exit 3"]).returncode == 3
    outcome = _run(tmp_path, ["/bin/sh", "-c", "sleep 30 & sleep 30"], timeout=1)
    assert outcome.timed_out and outcome.returncode in (-signal.SIGTERM, -signal.SIGKILL)


def test_a_dead_zygote_falls_back_to_the_launcher_then_is_started_again(tmp_path: Path) -> None:
    zygote = zygote_client.SHARED.current()
    assert zygote is not None
    os.kill(zygote.pid, signal.SIGKILL)
    # This run finds it dead: the per-program launcher starts it (the app is its parent).
    assert _parent(_run(tmp_path, PARENT)) == os.getpid()
    again = _parent(_run(tmp_path, PARENT))
    assert again not in (os.getpid(), zygote.pid)


def test_the_switch_off_uses_the_launcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(zygote_client.SWITCH, "off")
    assert _parent(_run(tmp_path, PARENT)) == os.getpid()
