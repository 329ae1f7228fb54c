"""Run one child process in its own process group, with output caps, a timeout and clean kill.

Why a process group: a command may spawn children (a shell, a test runner, `make`). Killing only
the direct child would leave them running after Stop. The child starts with
`start_new_session=True`, so its pid is also its process-group id and `killpg` reaches every
descendant that did not deliberately move to another session. The group is also swept with
SIGKILL when the command finishes normally: background jobs it started do not outlive the call.

Processes that leave the group (`setsid`, a double fork) are caught too, on Linux: each run tags
its environment with a unique `CASHCODE_RUN_TAG`, inherited by every descendant, and the sweep
kills every process of ours that carries the tag or descends from the child (read from /proc).
Residual risk: a descendant that both clears its environment and re-parents away escapes; only
a cgroup could hold it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Starts argv with subprocess.Popen's keyword arguments (the sandbox's confined start).
Popen = Callable[..., "subprocess.Popen[bytes]"]

RUN_TAG_VAR = "CASHCODE_RUN_TAG"
TERM_GRACE_S = 0.2  # SIGTERM first so well-behaved programs can clean up, then SIGKILL
PIPE_GRACE_S = 0.5  # after the main process exits, how long stray holders of the pipes may linger
READ_CHUNK = 65536


@dataclass(frozen=True)
class CapturedStream:
    data: bytes  # the first `cap` bytes
    total: int  # bytes the process wrote in all
    tail: bytes = b""  # the last bytes after `data` (up to `cap`): errors and summaries come last

    @property
    def truncated(self) -> bool:
        return self.total > len(self.data) + len(self.tail)


@dataclass(frozen=True)
class ProcessOutcome:
    returncode: int | None  # None only if it could not be collected
    stdout: CapturedStream
    stderr: CapturedStream
    timed_out: bool
    pid: int


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,  # noqa: ASYNC109  on timeout the process is killed and timed_out reported, no cancel
    cap: int,
    popen: Popen | None = None,
) -> ProcessOutcome:
    """Run `argv` exactly (no PATH lookup beyond what argv[0] already is, no shell).

    `popen` starts it instead of asyncio (the sandbox starts it from a confined thread:
    app/sandbox/confine.py); everything after the start is the same."""
    tag = uuid.uuid4().hex
    options: dict[str, Any] = {
        "cwd": str(cwd),
        "env": {**env, RUN_TAG_VAR: tag},
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "start_new_session": True,
    }
    proc: asyncio.subprocess.Process | _Adopted
    if popen is None:
        proc = await asyncio.create_subprocess_exec(*argv, **options)
    else:
        proc = await _Adopted.start(popen(argv, **options))
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Capture(cap), _Capture(cap)
    readers = [asyncio.ensure_future(out.drain(proc.stdout)), asyncio.ensure_future(err.drain(proc.stderr))]
    timed_out = False
    try:
        try:
            async with asyncio.timeout(timeout):
                await _exited(proc)
        except TimeoutError:
            timed_out = True
        # Background descendants may still hold the pipes open; don't wait for them forever.
        _done, pending = await asyncio.wait(readers, timeout=PIPE_GRACE_S)
        if pending or timed_out:
            await kill_group(proc)
            kill_escaped(proc.pid, tag)
            # A descendant that escaped into its own session could keep a pipe open: bounded wait.
            await asyncio.wait(readers, timeout=PIPE_GRACE_S)
    finally:
        # Also on cancellation (Stop) or any failure: nothing may outlive the call.
        if proc.returncode is None:
            await kill_group(proc)
        for task in readers:
            task.cancel()
        _signal_group(proc.pid, signal.SIGKILL)  # sweep stragglers; harmless if the group is gone
        kill_escaped(proc.pid, tag)
        if isinstance(proc, _Adopted):
            proc.close()
    return ProcessOutcome(proc.returncode, out.result(), err.result(), timed_out, proc.pid)


class _Adopted:
    """A child started by `subprocess.Popen` elsewhere, seen as asyncio's Process is here:
    pid, returncode, wait() and the two pipes as stream readers."""

    def __init__(self, child: subprocess.Popen[bytes]) -> None:
        self._child = child
        self.pid = child.pid
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._transports: list[asyncio.BaseTransport] = []

    @classmethod
    async def start(cls, child: subprocess.Popen[bytes]) -> _Adopted:
        adopted = cls(child)
        loop = asyncio.get_running_loop()
        readers = []
        for pipe in (child.stdout, child.stderr):
            reader = asyncio.StreamReader(limit=READ_CHUNK)
            transport, _ = await loop.connect_read_pipe(_given(asyncio.StreamReaderProtocol(reader)), pipe)
            adopted._transports.append(transport)
            readers.append(reader)
        adopted.stdout, adopted.stderr = readers
        return adopted

    @property
    def returncode(self) -> int | None:
        return self._child.poll()

    async def wait(self) -> int:
        while (code := self._child.poll()) is None:  # noqa: ASYNC110  no child watcher owns this pid
            await asyncio.sleep(0.02)
        return code

    def close(self) -> None:
        for transport in self._transports:
            transport.close()


def _given(protocol: asyncio.StreamReaderProtocol) -> Callable[[], asyncio.StreamReaderProtocol]:
    return lambda: protocol


async def _exited(proc: asyncio.subprocess.Process | _Adopted) -> None:
    """Until the direct child has exited. Not `proc.wait()`: on Python 3.11 that also waits for
    the pipes to close, which a descendant that escaped the group could hold open forever."""
    while proc.returncode is None:  # noqa: ASYNC110  polled on purpose (docstring): no event to await
        await asyncio.sleep(0.02)


async def kill_group(proc: asyncio.subprocess.Process | _Adopted) -> None:
    """SIGTERM the group, give it a moment, SIGKILL it, and reap the direct child."""
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), TERM_GRACE_S)
    except (TimeoutError, asyncio.CancelledError):
        pass
    finally:
        # In `finally` so a second cancellation during the grace period still kills everything.
        _signal_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(proc.wait(), 2.0)


def kill_escaped(root_pid: int, tag: str) -> list[int]:
    """SIGKILL processes that left the child's group: descendants of `root_pid` and anything
    carrying our run tag. Linux only (/proc); elsewhere the group kill is all we have."""
    if not sys.platform.startswith("linux"):
        return []
    me = os.getpid()
    parents: dict[int, int] = {}
    tagged: set[int] = set()
    needle = f"{RUN_TAG_VAR}={tag}".encode()
    for entry in _proc_pids():
        if entry == me:
            continue
        parent = _parent_of(entry)
        if parent is not None:
            parents[entry] = parent
        with contextlib.suppress(OSError), open(f"/proc/{entry}/environ", "rb") as fh:
            if needle in fh.read().split(b"\0"):
                tagged.add(entry)
    victims = tagged | _descendants(root_pid, parents)
    victims.discard(me)
    for pid in victims:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return sorted(victims)


def _proc_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # The command name (2nd field) is in parentheses and may contain spaces or ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def _descendants(root: int, parents: Mapping[int, int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class _Capture:
    """Keeps the first `cap` bytes and the last `cap` bytes after them, and keeps draining, so
    the child never blocks on a full pipe.

    State lives on the object so a reader cancelled mid-way still leaves what it had read.
    """

    def __init__(self, cap: int) -> None:
        self._cap = cap
        self._kept = bytearray()
        self._tail = bytearray()
        self._total = 0

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(READ_CHUNK):
            self._total += len(chunk)
            room = self._cap - len(self._kept)
            if room > 0:
                self._kept += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self._tail += chunk
                if len(self._tail) > self._cap:
                    del self._tail[: len(self._tail) - self._cap]

    def result(self) -> CapturedStream:
        return CapturedStream(bytes(self._kept), self._total, bytes(self._tail))
