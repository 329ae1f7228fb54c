"""Which process is it: a (pid, start time) pair names one process even after its pid is reused
(the task runs' and the Inbox items' owners, app/tasks/scheduler.py and app/api/inbox.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def process_start(pid: int) -> str | None:
    """When process `pid` started, as the kernel counts it (Linux: field 22 of
    /proc/<pid>/stat, clock ticks since boot); None where that cannot be read. A pid is reused
    once its process is gone; the pair (pid, start) names one process."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
        # the command name (field 2) may hold spaces and ")": count from the last ")"
        return data[data.rindex(b")") + 2 :].split()[19].decode()
    except (OSError, ValueError, IndexError):
        return None


def pid_alive(pid: int, start: str | None = None) -> bool:
    """Is the process that claimed a run still there — that process, not a later one that got
    its pid (`start`: its process_start when it claimed the run; None for runs recorded
    without it, or where start times cannot be read: then the pid alone decides)?
    (Windows: assume not, so a crashed run never blocks its task; a run of a second process is
    then failed early at worst.)"""
    if sys.platform == "win32":
        return False
    if pid != os.getpid():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
    if start is None:
        return True
    now = process_start(pid)
    return now is None or now == start
