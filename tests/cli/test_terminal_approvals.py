"""Approvals asked in a real terminal (a pty as stdin): y = once, a = always, Enter = deny."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_interrupts import OutputWatcher


def _ask_in_a_terminal(env: dict[str, str], cwd: Path, answer: str) -> tuple[int, str, str]:
    primary, secondary = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "ask", "do it"],
        env=env,
        cwd=cwd,
        stdin=secondary,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(secondary)
    assert proc.stderr is not None and proc.stdout is not None
    err = OutputWatcher(proc.stderr)
    err.wait_for("Allow? ")
    os.write(primary, answer.encode() + b"\n")
    with proc:  # closes both pipes (no unclosed-file warning)
        out = proc.stdout.read()
        code = proc.wait(timeout=30)
    os.close(primary)
    return code, out, err.text


@pytest.mark.parametrize(("answer", "written"), [("y", True), ("", False), ("n", False)])
def test_the_prompt_shows_what_will_run_and_defaults_to_deny(
    env: dict[str, str], home: Path, fake_llm: Any, answer: str, written: bool
) -> None:
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "hello"}}]},
        {"text": "Finished."},
    )
    code, out, err = _ask_in_a_terminal(env, home / "ws", answer)
    assert code == 0, err
    assert "out.txt" in err and "[N] deny" in err
    assert "runs with your permissions" not in err  # writing a file starts no program
    assert (home / "ws" / "out.txt").exists() is written
    assert out.endswith("Finished.\n")


def test_always_in_the_terminal_stores_a_grant_for_that_exact_command(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    argv = [sys.executable, "-c", "print('hi from the command')"]
    step = {"tool_calls": [{"name": "exec", "arguments": {"argv": argv}}]}
    fake_llm.script(step, {"text": "Ran it."})
    code, _, err = _ask_in_a_terminal(env, home / "ws", "a")
    assert code == 0, err
    assert "[a] always" in err and "print('hi from the command')" in err
    assert "This program runs with your permissions" in err
    # the second time it runs without asking, even with no terminal at all
    fake_llm.script(step, {"text": "Ran it again."})
    from tests.cli.conftest import cashcode

    again = cashcode("ask", "do it", env=env, cwd=home / "ws")
    assert again.returncode == 0 and "Allow?" not in again.stderr and "Denied" not in again.stderr
    assert "hi from the command" in str(fake_llm.model_requests()[-1].body["messages"])
