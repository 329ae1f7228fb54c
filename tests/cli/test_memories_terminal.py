"""`cashcode memories` in a terminal (issue 25 item 8): adding the user's own text defaults to
Yes (Enter adds), changes still default to No, and update/delete take a unique id prefix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import base_env, cashcode
from tests.cli.test_interrupts import OutputWatcher


def _in_a_terminal(
    args: list[str], env: dict[str, str], cwd: Path, typed: str, prompt: str
) -> tuple[int, str]:
    primary, secondary = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=cwd,
        stdin=secondary,
        stdout=subprocess.PIPE,
        text=True,
    )
    os.close(secondary)
    assert proc.stdout is not None
    out = OutputWatcher(proc.stdout)
    try:
        out.wait_for(prompt)
        os.write(primary, typed.encode())
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(primary)
    proc.stdout.close()
    return code, out.text


def test_enter_adds_the_users_own_text_and_a_prefix_names_the_memory(home: Path) -> None:
    env, ws = base_env(home), home / "ws"
    code, shown = _in_a_terminal(["memories", "add", "Prefers tea"], env, ws, "\n", "Add it? [Y/n] ")
    assert code == 0, shown
    [memory] = json.loads(cashcode("memories", "list", "--json", env=env, cwd=ws).stdout)
    assert memory["content"] == "Prefers tea"

    # A change asked in a terminal still defaults to No.
    prefix = memory["id"][:8]
    code, shown = _in_a_terminal(["memories", "delete", prefix], env, ws, "\n", "Delete it? [y/N] ")
    assert code == 1 and "Not deleted" in shown and memory["id"] in shown

    updated = cashcode(
        "memories", "update", prefix, "--content", "Prefers green tea", "--yes", env=env, cwd=ws
    )
    assert updated.returncode == 0, updated.stderr
    [after] = json.loads(cashcode("memories", "list", "--json", env=env, cwd=ws).stdout)
    assert (after["id"], after["content"]) == (memory["id"], "Prefers green tea")

    unknown = cashcode("memories", "delete", "zzzz", "--yes", env=env, cwd=ws)
    assert unknown.returncode == 1 and "no memory id starts with 'zzzz'" in unknown.stderr
    deleted = cashcode("memories", "delete", prefix, "--yes", env=env, cwd=ws)
    assert (
        deleted.returncode == 0
        and json.loads(cashcode("memories", "list", "--json", env=env, cwd=ws).stdout) == []
    )
