"""Process-tree helpers for window tests and benchmarks (Linux /proc)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may contain spaces; fields follow the last ")".
    return raw[raw.rindex(")") + 2 :].split()


def session_members(sid: int) -> list[int]:
    """Live (non-zombie) processes in session `sid`; start the app with start_new_session=True."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        if fields is not None and fields[0] != "Z" and int(fields[3]) == sid:
            members.append(int(entry))
    return members


def wait_for_session_gone(sid: int, timeout_s: float) -> list[int]:
    """Wait (bounded) until nothing is left of the session; returns the survivors."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = session_members(sid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _rollup(pid: int) -> dict[str, int]:
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return {}
    fields = {}
    for line in lines[1:]:
        name, _, rest = line.partition(":")
        if rest.strip().endswith("kB"):
            fields[name] = int(rest.split()[0])
    return fields


def pss_kib(pid: int) -> int:
    """Proportional set size of one process (shared pages split between sharers)."""
    return _rollup(pid).get("Pss", 0)


def uss_kib(pid: int) -> int:
    """Unique set size: pages only this process maps. Unlike PSS it does not move when other,
    unrelated processes map the same libraries (e.g. a second Qt app on the machine)."""
    fields = _rollup(pid)
    return fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)


def session_pss_kib(sid: int) -> int:
    """PSS summed over every process of the session (RSS would double-count shared pages)."""
    return sum(pss_kib(pid) for pid in session_members(sid))


def session_uss_kib(sid: int) -> int:
    return sum(uss_kib(pid) for pid in session_members(sid))


def session_cpu_s(sid: int) -> float:
    """User + system CPU seconds used so far by the live processes of session `sid`."""
    ticks = 0
    for pid in session_members(sid):
        fields = _stat_fields(pid)
        if fields is not None:
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")
