"""The app's side of the sandbox's zygote (app/sandbox/zygote.py, docs/decisions.md 510–514).

`Zygotes.spawn` starts a confined program through this process's zygote (started on the first
call) and returns it as a `subprocess.Popen`, so `app/tools/process.py` adopts it exactly as
the per-program launcher's: pid (the program's own, its process group when it starts a new
session), its pipes, `poll()`. The exit status comes from the zygote over the request's own
socket, since the program is the zygote's child, not ours. None: no zygote (it cannot start, it
died, the request does not fit, or `CASHCODE_SANDBOX_ZYGOTE=off`): the caller falls back to the
per-program launcher.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from app.sandbox import launch

SWITCH = "CASHCODE_SANDBOX_ZYGOTE"  # "off": always the per-program launcher
ZYGOTE = Path(__file__).with_name("zygote.py")
READY_TIMEOUT_S = 60.0  # one Python start, on a loaded machine
REPLY_TIMEOUT_S = 60.0
MAX_STARTS = 3  # a zygote that keeps dying is not restarted for ever: the launcher then
LOST = 255  # the exit status of a program whose zygote died before it (not collectable)
_HANDLED = {"cwd", "env", "stdin", "stdout", "stderr", "start_new_session"}


class ZygoteChild(subprocess.Popen[bytes]):
    """A program the zygote started, seen as a Popen: pid, pipes, poll/wait/send_signal."""

    def __init__(  # not Popen's constructor: nothing is started here
        self,
        argv: Sequence[str],
        pid: int,
        status: socket.socket,
        streams: list[IO[bytes] | None],
    ) -> None:
        self.args = list(argv)
        self.pid = pid
        self.returncode: int | None = None
        self.stdin, self.stdout, self.stderr = streams
        self._child_created = False  # Popen's __del__ must not try to reap what is not ours
        self._status = status
        self._pidfd: int | None = None
        with contextlib.suppress(OSError):  # gone already: its status is on the socket
            self._pidfd = os.pidfd_open(pid)

    def poll(self) -> int | None:
        if self.returncode is not None:
            return self.returncode
        try:
            said = self._status.recv(64, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return None
        except OSError:
            said = b""
        if said.startswith(b"X"):
            self._finish(int(said[1:]))
        elif not said and not self._alive():  # the zygote died: the status is lost
            self._finish(LOST)
        return self.returncode

    def _alive(self) -> bool:
        if self._pidfd is None:
            return False
        readable, _, _ = select.select([self._pidfd], [], [], 0)
        return not readable

    def _finish(self, code: int) -> None:
        self.returncode = code
        self._status.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def wait(self, timeout: float | None = None) -> int:
        waited = 0.0
        while (code := self.poll()) is None:
            if timeout is not None and waited >= timeout:
                raise subprocess.TimeoutExpired(self.args, timeout)
            watched = [self._status] if self._status.fileno() >= 0 else []
            select.select(watched + ([self._pidfd] if self._pidfd is not None else []), [], [], 0.05)
            waited += 0.05
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)


class Zygote:
    """One running zygote: its control socket and its process."""

    def __init__(self, ctrl: socket.socket, proc: subprocess.Popen[bytes]) -> None:
        self._ctrl = ctrl
        self._proc = proc
        self.alive = True

    @classmethod
    def start(cls) -> Zygote:
        """Start one and wait for its `R`. Raises OSError."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: v for k, v in os.environ.items() if not launch.read_by_loader(k)}
        try:
            proc = subprocess.Popen(
                zygote_argv(theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # the terminal's Ctrl-C is not for it
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.settimeout(READY_TIMEOUT_S)
        try:
            ready = ours.recv(1)
        except OSError:
            ready = b""
        if ready != b"R":
            ours.close()
            proc.kill()
            proc.wait()
            raise OSError("the sandbox's zygote did not start")
        ours.settimeout(None)
        return cls(ours, proc)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def spawn(
        self, argv: Sequence[str], ruleset_fd: int, temp: str, keep: Sequence[str], kwargs: Mapping[str, Any]
    ) -> tuple[ZygoteChild, str] | None:
        """Start `argv`: the child and what its error pipe said ("" = executed). None: the
        zygote is gone (then nothing was started) or the request does not fit."""
        if set(kwargs) - _HANDLED:
            return None
        request = {
            "argv": [os.fsdecode(a) for a in argv],
            "env": dict(kwargs.get("env") or os.environ),
            "cwd": os.fspath(kwargs.get("cwd") or os.getcwd()),
            "temp": temp,
            "keep": list(keep),
            "session": bool(kwargs.get("start_new_session")),
        }
        try:
            payload = json.dumps(request).encode()
        except (TypeError, ValueError):  # bytes in argv or env: Popen's own handling, not ours
            return None
        opened: list[int] = []
        ours: list[int | None] = [None, None, None]
        ends: list[int] = []
        for index, name in enumerate(("stdin", "stdout", "stderr")):
            ends.append(_child_end(kwargs.get(name), index, ends, opened, ours))
        status, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        read_end, write_end = os.pipe()
        opened += [theirs.detach(), write_end]
        said_pid = b""
        try:
            try:
                socket.send_fds(self._ctrl, [payload], [opened[-2], write_end, ruleset_fd, *ends])
            finally:
                for fd in opened:
                    os.close(fd)
            status.settimeout(REPLY_TIMEOUT_S)
            said_pid = status.recv(64)
            status.settimeout(None)
        except OSError as exc:
            # Too big for one message (a huge environment): this request only. Else it is gone.
            self.alive = exc.errno == errno.EMSGSIZE
        else:
            self.alive = said_pid.startswith(b"P")
        if not said_pid.startswith(b"P"):  # nothing was started
            for fd in (read_end, *[o for o in ours if o is not None]):
                os.close(fd)
            status.close()
            return None
        with os.fdopen(read_end, "rb") as pipe:
            said = pipe.read().decode("utf-8", "replace")  # EOF: the program was executed
        streams: list[IO[bytes] | None] = [
            None if fd is None else os.fdopen(fd, "wb" if index == 0 else "rb")
            for index, fd in enumerate(ours)
        ]
        return ZygoteChild(argv, int(said_pid[1:]), status, streams), said

    def close(self) -> None:
        self.alive = False
        self._ctrl.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(5)


def _child_end(spec: Any, index: int, ends: list[int], opened: list[int], ours: list[int | None]) -> int:
    """The fd the program gets as stdio `index` for a Popen-style `spec`."""
    if spec is None:
        return index  # inherited, as Popen does
    if spec == subprocess.DEVNULL:
        fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        opened.append(fd)
        return fd
    if spec == subprocess.PIPE:
        r, w = os.pipe()
        child, mine = (r, w) if index == 0 else (w, r)
        opened.append(child)
        ours[index] = mine
        return child
    if spec == subprocess.STDOUT and index == 2:
        return ends[1]
    return spec if isinstance(spec, int) else int(spec.fileno())


def zygote_argv(ctrl_fd: int) -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, launch.LAUNCH_FLAG, "--zygote", str(ctrl_fd)]
    return [sys.executable, "-I", "-S", str(ZYGOTE), str(ctrl_fd)]


class Zygotes:
    """This process's zygote, started on first use and again (up to MAX_STARTS) if it died.
    One per process by nature (it serves the programs of the process that started it), so
    `SHARED` below is the one instance the sandbox uses."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._zygote: Zygote | None = None
        self._owner = os.getpid()
        self.starts = 0

    def current(self) -> Zygote | None:
        """The live zygote, started if need be; None when there is none to be had."""
        if os.environ.get(SWITCH, "").lower() in ("off", "0", "false"):
            return None
        with self._lock:
            if self._owner != os.getpid():  # a forked copy of the app: not its zygote
                self._zygote, self._owner, self.starts = None, os.getpid(), 0
            if self._zygote is not None and self._zygote.alive:
                return self._zygote
            if self._zygote is not None:
                self._zygote.close()
                self._zygote = None
            if self.starts >= MAX_STARTS:
                return None
            self.starts += 1
            try:
                self._zygote = Zygote.start()
            except OSError:
                return None
            return self._zygote

    def spawn(
        self, argv: Sequence[str], ruleset_fd: int, temp: str, keep: Sequence[str], kwargs: Mapping[str, Any]
    ) -> tuple[ZygoteChild, str] | None:
        zygote = self.current()
        return None if zygote is None else zygote.spawn(argv, ruleset_fd, temp, keep, kwargs)


SHARED = Zygotes()
