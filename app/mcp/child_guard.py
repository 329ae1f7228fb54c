"""Runs an MCP server so that it never outlives the app, even when the app is killed (-9).

Started as `python -I -S child_guard.py PARENT_PID PROG [ARG ...]` in a new process group (the
SDK's stdio client and our launcher both start a new session). The guard starts the server
with the same stdin/stdout/stderr, so it adds no copying, then waits. When the app dies:
- Linux: the kernel sends the parent-death signal (prctl PR_SET_PDEATHSIG) to the guard;
- elsewhere (and as a backup): a thread notices that the parent pid changed;
either way the guard kills its whole process group (the server and any children it started).
A normal shutdown is untouched: the SDK closes stdin, then signals the group.

`PARENT_PID --landlock PLAN.json PROG …` (a server the user runs sandboxed, app/mcp/sandboxed.py):
the guard restricts itself with the Landlock ruleset of PLAN (built by the app) before it starts
the server, which inherits it. If the restriction fails, nothing is started (exit 126): a
sandboxed server never runs unconfined. `--landlock PLAN.json --private PROG …`: first a private
network and /tmp (app/sandbox/launch.py `enter`; the plan's folder, the server's private temp
folder, becomes /tmp), with the ruleset built before, while its paths are still where the
app saw them.

Standalone on purpose (only the standard library, no app imports): it must start fast.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

_DEATH_SIGNAL = signal.SIGUSR1
_PR_SET_PDEATHSIG = 1


def _kill_group(*_: object) -> None:
    try:
        os.killpg(0, signal.SIGTERM)
        time.sleep(0.5)
        os.killpg(0, signal.SIGKILL)  # ends the guard too
    finally:
        os._exit(137)


def _watch_parent(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            _kill_group()
        time.sleep(0.5)


def _confine(plan_file: str, private: bool) -> str | None:
    """Apply the Landlock plan to this process (in private namespaces when `private`); the
    error text, or None when confined."""
    import json
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])  # the app's own code, never the current folder
    if root not in sys.path:
        sys.path.append(root)
    try:
        from app.sandbox.confine import RulesetPlan, apply_plan, build_ruleset
        from app.sandbox.landlock import Landlock

        raw = json.loads(Path(plan_file).read_text(encoding="utf-8"))
        plan = RulesetPlan(
            abi=int(raw["abi"]),
            fs=int(raw["fs"]),
            net=int(raw["net"]),
            scoped=int(raw["scoped"]),
            rules=[(str(p), int(r)) for p, r in raw["rules"]],
        )
        lock = Landlock.load()
        if lock is None:
            return "the kernel has no Landlock"
        if not private:
            apply_plan(plan, lock)
            return None
        from app.sandbox.launch import enter

        fd = build_ruleset(plan, lock)  # its paths opened before /tmp is replaced
        try:
            enter(str(Path(plan_file).parent), [path for path, _ in plan.rules])
            lock.restrict(fd)
        finally:
            os.close(fd)
    except Exception as exc:  # any failure: the server must not start
        return str(exc) or type(exc).__name__
    return None


def main(argv: list[str]) -> int:
    parent = int(argv[0])
    if len(argv) > 2 and argv[1] == "--landlock":
        private = argv[3:4] == ["--private"]
        failed = _confine(argv[2], private)
        if failed is not None:
            print(f"the sandbox could not start, the server was not started: {failed}", file=sys.stderr)
            return 126
        argv = [argv[0], *argv[4 if private else 3 :]]
    signal.signal(_DEATH_SIGNAL, _kill_group)
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(_DEATH_SIGNAL), 0, 0, 0)
    if os.getppid() != parent:  # the app died before the signal was armed
        _kill_group()
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    try:
        child = subprocess.Popen(argv[1:])
    except OSError as exc:
        print(f"cannot start {argv[1]!r}: {exc}", file=sys.stderr)
        return 127

    def _on_term(*_: object) -> None:
        child.terminate()
        os._exit(143)

    signal.signal(signal.SIGTERM, _on_term)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
