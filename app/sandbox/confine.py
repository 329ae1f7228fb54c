"""Build the confinement for one program and start it confined.

The app opens every path and builds the Landlock ruleset, so every error is reported before
anything starts. Then a fresh thread restricts *itself* (no_new_privs and Landlock apply to the
calling thread only) and starts the program from there: the child inherits the thread's
domain, and the thread ends right after, so the restriction ends with it. Why not
`preexec_fn` (restrict in the child between fork and exec): it makes Python fork instead of
vfork and run Python code in the forked child, 20 ms per start on a loaded 2-core machine and
the documented thread hazard; a launcher process (`python -I -S`) costs ~10 ms more per start.
The thread costs about nothing (docs/decisions.md 314, bench/bench_sandbox.py).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.sandbox import landlock as ll
from app.sandbox import launch
from app.sandbox.policy import Policy, rules


class SandboxError(RuntimeError):
    """The sandbox could not be set up; the program was not started."""


@dataclass
class Confinement:
    ruleset_fd: int
    temp: Path
    lock: ll.Landlock
    env: dict[str, str]  # TMPDIR and friends, HOME: the private temp folder (/tmp when private)
    # Private network and /tmp (app/sandbox/launch.py): the paths the ruleset grants, so those
    # under the host's /tmp stay visible. None: Landlock alone (no user namespaces here).
    private: list[str] | None = None

    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """`subprocess.Popen(argv, **kwargs)` confined by the ruleset (in private namespaces
        when `private` is set). Raises what Popen raises (PermissionError: the program is not
        readable in the sandbox), or SandboxError when the confinement could not be applied
        (then nothing was started)."""
        if self.private is not None:
            return self._launch(argv, kwargs)
        started: list[subprocess.Popen[bytes]] = []
        failed: list[BaseException] = []

        def confined_start() -> None:
            try:
                self.lock.restrict(self.ruleset_fd)
            except OSError as exc:
                failed.append(SandboxError(str(exc)))
                return
            try:
                started.append(subprocess.Popen(argv, **kwargs))
            except BaseException as exc:  # handed to the caller's thread as it is
                failed.append(exc)

        # A thread of its own, never a pool's: the restriction is permanent for the thread.
        thread = threading.Thread(target=confined_start, name="cashcode-sandbox-start", daemon=True)
        thread.start()
        thread.join()
        if failed:
            raise failed[0]
        return started[0]

    def _launch(self, argv: Sequence[str], kwargs: dict[str, Any]) -> subprocess.Popen[bytes]:
        """Start `argv` through the launcher, which enters the namespaces, restricts itself
        with the ruleset (inherited) and execs it; its error pipe says whether that worked."""
        # The launcher runs unconfined until it restricts itself: the dynamic loader's variables
        # (LD_PRELOAD…) must not load anything into it, so they reach the program by argument.
        env = dict(kwargs.pop("env", None) or os.environ)
        moved = {k: env.pop(k) for k in list(env) if launch.read_by_loader(k)}
        read_end, write_end = os.pipe()
        try:
            child = subprocess.Popen(
                launcher_argv(self.ruleset_fd, write_end, self.temp, self.private or [], argv, moved),
                pass_fds=(self.ruleset_fd, write_end),
                env=env,
                **kwargs,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            said = pipe.read().decode("utf-8", "replace")  # EOF: the program was executed
        if not said:
            return child
        child.wait()
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                stream.close()
        if said.startswith("E"):
            code, _, text = said[1:].partition(" ")
            if not code.isdigit():
                raise SandboxError(text)
            if int(code) == errno.ENOENT and os.path.isabs(argv[0]) and os.path.exists(argv[0]):
                # There for the app, not inside (under the host's /tmp, not granted): the same
                # answer as without namespaces, so the user is offered to run it unconfined.
                raise PermissionError(errno.EACCES, "not visible in the sandbox")
            raise OSError(int(code), text)
        raise SandboxError(said[1:])

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.ruleset_fd)
        shutil.rmtree(self.temp, ignore_errors=True)


def launcher_argv(
    ruleset_fd: int,
    err_fd: int,
    temp: Path,
    keep: Sequence[str],
    argv: Sequence[str],
    setenv: Mapping[str, str] | None = None,
) -> list[str]:
    """The launcher's command line (from source: this Python, isolated; frozen: the app's own
    executable with its hidden flag); `setenv`: variables only the program gets."""
    args = [str(ruleset_fd), str(err_fd), str(temp)]
    for path in launch.kept_under_tmp(list(keep), os.path.realpath(temp)):
        args += ["--keep", path]
    for name, value in (setenv or {}).items():
        args += ["--setenv", f"{name}={value}"]
    args += ["--", *argv]
    if getattr(sys, "frozen", False):
        return [sys.executable, launch.LAUNCH_FLAG, *args]
    return [sys.executable, "-I", "-S", launch.__file__, *args]


def private_temp() -> Path:
    return Path(tempfile.mkdtemp(prefix="cashcode-sandbox-"))


@dataclass(frozen=True)
class RulesetPlan:
    """What a ruleset handles and allows, as plain data (a launcher builds it from JSON)."""

    abi: int
    fs: int
    net: int
    scoped: int
    rules: list[tuple[str, int]]


def ruleset_plan(policy: Policy, abi: int) -> RulesetPlan:
    """The handled rights and the rules for `policy` on a kernel of Landlock `abi`."""
    try:
        pairs = rules(policy)
    except ValueError as exc:
        raise SandboxError(str(exc)) from exc
    handled = ll.fs_rights(abi)
    net = 0 if policy.network or abi < 4 else ll.BIND_TCP | ll.CONNECT_TCP
    scoped = ll.SCOPE_ABSTRACT_UNIX_SOCKET | ll.SCOPE_SIGNAL if abi >= 6 else 0
    return RulesetPlan(abi, handled, net, scoped, pairs)


def build_ruleset(plan: RulesetPlan, lock: ll.Landlock) -> int:
    """The ruleset of `plan` (not applied yet): its fd. Raises OSError."""
    fd = lock.create(abi=plan.abi, fs=plan.fs, net=plan.net, scoped=plan.scoped)
    try:
        for path, rights in plan.rules:
            lock.allow_path(fd, path, rights & plan.fs)
    except BaseException:
        os.close(fd)
        raise
    return fd


def apply_plan(plan: RulesetPlan, lock: ll.Landlock) -> None:
    """Restrict the calling thread by `plan` (a launcher's main thread, before it starts the
    program). Raises OSError; then nothing may be started."""
    fd = build_ruleset(plan, lock)
    try:
        lock.restrict(fd)
    finally:
        os.close(fd)


def confine(policy: Policy, lock: ll.Landlock, abi: int, *, private: bool = False) -> Confinement:
    """Build the ruleset for `policy` (its temp folder already made by `private_temp`);
    `private`: the program also gets its own network and /tmp (app/sandbox/launch.py)."""
    if abi < 1:
        raise SandboxError("Landlock is not available")
    plan = ruleset_plan(policy, abi)
    handled, net, scoped, pairs = plan.fs, plan.net, plan.scoped, plan.rules
    try:
        fd = lock.create(abi=abi, fs=handled, net=net, scoped=scoped)
    except OSError as exc:
        raise SandboxError(str(exc)) from exc
    try:
        for path, rights in pairs:
            lock.allow_path(fd, path, rights & handled)
    except OSError as exc:
        os.close(fd)
        raise SandboxError(str(exc)) from exc
    # Inside, /tmp is the private folder (unless the workspace is /tmp: launch.kept_under_tmp).
    temp = launch.TMP if private else str(policy.temp)
    env = {"TMPDIR": temp, "TMP": temp, "TEMP": temp, "HOME": temp}
    return Confinement(fd, policy.temp, lock, env, [p for p, _ in pairs] if private else None)
