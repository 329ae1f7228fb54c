"""stdio servers and launched HTTP servers never outlive the app, also when it is killed -9."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HOLDER = Path(__file__).with_name("app_holder.py")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def wait_gone(pid: int, timeout_s: float) -> bool:
    """Wait for a process (not our child) to end, on its pidfd: no polling."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], timeout_s)
        return bool(readable)
    finally:
        os.close(fd)


def test_children_die_when_the_app_is_killed(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    holder = subprocess.Popen(
        [sys.executable, str(HOLDER), str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert holder.stdout is not None
        ready, _, _ = select.select([holder.stdout], [], [], 120)
        assert ready, "the app did not connect its servers in time"
        assert holder.stdout.readline().strip() == "READY"
        kids = descendants(holder.pid)
        # two guards, the stdio server and the HTTP server (at least)
        assert len(kids) >= 4, kids
        kill_and_check(holder, kids)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def kill_and_check(holder: subprocess.Popen[str], kids: set[int]) -> None:
    """kill -9 the app; every process it had started must be gone soon after."""
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    survivors = [pid for pid in kids if not wait_gone(pid, 20)]
    assert survivors == []
