"""`sessions import`, `mcp import` and `evals run` refuse /dev/zero, a FIFO and a file over their
cap without reading it (issue 24.5): before, /dev/zero grew to gigabytes and a FIFO blocked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.conftest import base_env, cashcode

COMMANDS = {
    "sessions import": (["sessions", "import"], 256 * 1024 * 1024),
    "mcp import": (["mcp", "import"], 1024 * 1024),
    "evals run": (["evals", "run"], 2_000_000),
}


def _inputs(home: Path, cap: int) -> dict[str, Path]:
    fifo = home / "pipe.json"
    os.mkfifo(fifo)
    big = home / "big.json"
    with big.open("wb") as fh:  # sparse: the size is past the cap, the disk is not used
        fh.truncate(cap + 1)
    return {"/dev/zero": Path("/dev/zero"), "a FIFO": fifo, "an oversized file": big}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_special_and_oversized_files_are_refused_unread(home: Path, command: str) -> None:
    argv, cap = COMMANDS[command]
    env = base_env(home)
    for what, path in _inputs(home, cap).items():
        done = cashcode(*argv, str(path), env=env, cwd=home / "ws", timeout=60)
        assert done.returncode != 0, (what, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        reason = "not a regular file" if what != "an oversized file" else "larger than"
        assert reason in done.stderr, (what, done.stderr)
