"""The sandbox's zygote: one long-lived launcher per app process that forks each confined program
into its private namespaces, so a program costs a fork instead of a Python start
(docs/decisions.md 510).

`python -I -S zygote.py CTRL_FD` (frozen: `CashCode --sandbox-launch --zygote CTRL_FD`). The app
starts it on its first confined program, before this process has any thread (it is a fresh
process), and it never starts one: the kernel refuses a user or mount namespace to a
multi-threaded caller. It says `R` on CTRL_FD (a SOCK_SEQPACKET socket), then serves requests
until the app closes its end (the app is gone: the zygote exits; programs already started go on).

A request is one message: JSON {argv, env, cwd, temp, keep, session} and six fds, in this order:
the request's own status socket, the error pipe's write end (close-on-exec in the program, as
with the launcher: EOF = executed), the Landlock ruleset the app built, and the program's
stdin, stdout, stderr. The zygote forks; the child does what `launch.py` does (setsid, stdio,
cwd, namespaces and mounts, loopback, no_new_privs and Landlock, exec) and writes `S<text>` or
`E<errno> <text>` to the error pipe when it cannot. The zygote says `P<pid>` on the status
socket at once and `X<returncode>` (subprocess's convention) when the program has exited; it
learns that from a pidfd, so it stays a plain single-threaded select loop.

Standard library only (it runs as a script from source).
"""

from __future__ import annotations

import importlib
import json
import os
import selectors
import signal
import socket
import sys

try:
    from app.sandbox import launch
except ImportError:  # from source: `python -I` puts neither the repo nor this folder on the path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    # The sibling file, by name: not a package import (the declared-dependencies check reads
    # `import X` statements as third-party packages).
    launch = importlib.import_module("launch")

ZYGOTE_FLAG = "--zygote"  # after launch.LAUNCH_FLAG in a frozen build
MAX_REQUEST = 4 << 20  # argv and environment together are bounded by the kernel's ARG_MAX anyway
REQUEST_FDS = 6
IDLE_S = 0.05  # no request for this long: release the mount namespaces of finished programs


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _child(req: dict, fds: list[int], libc: object, held: socket.socket) -> None:  # type: ignore[type-arg]
    """In the forked child: never returns."""
    err_fd, ruleset_fd, held_fd = fds[1], fds[2], held.fileno()
    stage = "S"
    try:
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores them; the program must not
            signal.signal(sig, signal.SIG_DFL)
        if req.get("session"):
            os.setsid()
        for target, fd in enumerate(fds[3:6]):
            os.dup2(fd, target)
        keep = {0, 1, 2, err_fd, ruleset_fd, held_fd}
        for fd in range(3, max(keep) + 1):  # the zygote's socket, other requests' fds
            if fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        os.closerange(max(keep) + 1, 1 << 20)
        os.set_inheritable(err_fd, False)
        stage = "E"
        os.chdir(req["cwd"])
        stage = "S"
        launch.enter(req["temp"], list(req["keep"]), network=False)  # the zygote's network
        # The zygote holds the mount namespace: its teardown (an RCU grace period, ms) then
        # happens in the zygote after the exit is reported, not in the program's exit.
        ns = os.open("/proc/self/ns/mnt", os.O_RDONLY)
        socket.send_fds(held, [str(os.getpid()).encode()], [ns])
        os.close(ns)
        os.close(held_fd)
        launch.restrict(libc, ruleset_fd)  # type: ignore[arg-type]
        os.close(ruleset_fd)
        stage = "E"
        argv = list(req["argv"])
        os.execvpe(argv[0], argv, dict(req["env"]))
    except OSError as exc:
        text = f"E{exc.errno} {exc.strerror}" if stage == "E" else f"S{exc.strerror or exc}"
        try:
            os.write(err_fd, text.encode())
        except OSError:
            pass
    except BaseException as exc:  # a bad request: say so, never fall back into the zygote's loop
        try:
            os.write(err_fd, f"S{type(exc).__name__}: {exc}".encode())
        except OSError:
            pass
    finally:
        os._exit(127)


class _Held:
    """Mount namespaces the zygote keeps until its programs have exited and it is idle."""

    def __init__(self) -> None:
        self.ours, self.theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.running: set[int] = set()
        self.by_pid: dict[int, int] = {}
        self.done: list[int] = []

    def receive(self) -> None:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(self.ours, 32, 1)
        except OSError:
            return
        for fd in fds:
            pid = int(msg or b"0")
            if pid in self.running:
                self.by_pid[pid] = fd
            else:
                self.done.append(fd)

    def exited(self, pid: int) -> None:
        self.running.discard(pid)
        if pid in self.by_pid:
            self.done.append(self.by_pid.pop(pid))

    def release(self) -> None:
        _close(self.done)
        self.done = []


def _spawn(ctrl: socket.socket, libc: object, sel: selectors.BaseSelector, held: _Held) -> bool:
    """Serve one request; False when the app has gone."""
    try:
        msg, fds, _flags, _addr = socket.recv_fds(ctrl, MAX_REQUEST, REQUEST_FDS)
    except OSError:
        return False
    if not msg and not fds:
        return False
    if len(fds) != REQUEST_FDS:
        _close(fds)
        return True
    status = socket.socket(fileno=fds[0])
    try:
        req = json.loads(msg)
        pid = os.fork()
    except (OSError, ValueError) as exc:
        try:
            os.write(fds[1], f"S{exc}".encode())
        except OSError:
            pass
        _close(fds[1:])
        status.close()
        return True
    if pid == 0:
        _child(req, fds, libc, held.theirs)
    held.running.add(pid)
    _close(fds[1:])
    try:
        status.send(f"P{pid}".encode())
    except OSError:
        pass  # the app gave up on it: still reaped below
    sel.register(os.pidfd_open(pid), selectors.EVENT_READ, (pid, status))
    return True


def _reap(key: selectors.SelectorKey, sel: selectors.BaseSelector, held: _Held) -> None:
    pid, status = key.data
    sel.unregister(key.fd)
    os.close(key.fd)
    _, wait_status = os.waitpid(pid, 0)
    try:
        status.send(f"X{os.waitstatus_to_exitcode(wait_status)}".encode())
    except OSError:
        pass
    status.close()
    held.exited(pid)


def serve(ctrl_fd: int) -> int:
    ctrl = socket.socket(fileno=ctrl_fd)
    try:
        launch.enter_network()
    except OSError as exc:  # the app falls back to the per-program launcher
        ctrl.send(f"S{exc}".encode())
        return 1
    libc = launch._libc()
    held = _Held()
    sel = selectors.DefaultSelector()
    sel.register(ctrl, selectors.EVENT_READ, None)
    sel.register(held.ours, selectors.EVENT_READ, held)
    ctrl.send(b"R")
    while True:
        ready = sel.select(IDLE_S if held.done else None)
        if not ready:  # idle: now the namespaces of finished programs may go
            held.release()
        for key, _events in ready:
            if key.data is None:
                if not _spawn(ctrl, libc, sel, held):
                    return 0
            elif key.data is held:
                held.receive()
            else:
                _reap(key, sel, held)


def main(argv: list[str]) -> int:
    return serve(int(argv[0]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
