"""Build the confinement for one program: the ruleset (in the parent) and what the child does.

The parent opens every path and builds the Landlock ruleset, so every error is reported before
anything starts. The child, between fork and exec, only sets no_new_privs and restricts itself
to the ruleset (`preexec`): two syscalls through functions bound beforehand, which is why
`preexec_fn` is safe enough here although the app has threads (docs/decisions.md). A launcher
process (`python -I -S`) would cost ~10 ms per start; this costs about nothing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.sandbox import landlock as ll
from app.sandbox.policy import Policy, rules


class SandboxError(RuntimeError):
    """The sandbox could not be set up; the program was not started."""


@dataclass
class Confinement:
    ruleset_fd: int
    temp: Path
    preexec: Callable[[], None]
    env: dict[str, str]  # TMPDIR and friends, HOME: the private temp folder

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.ruleset_fd)
        shutil.rmtree(self.temp, ignore_errors=True)


def private_temp() -> Path:
    return Path(tempfile.mkdtemp(prefix="cashcode-sandbox-"))


def confine(policy: Policy, lock: ll.Landlock, abi: int) -> Confinement:
    """Build the ruleset for `policy` (its temp folder already made by `private_temp`)."""
    if abi < 1:
        raise SandboxError("Landlock is not available")
    try:
        pairs = rules(policy)
    except ValueError as exc:
        raise SandboxError(str(exc)) from exc
    handled = ll.fs_rights(abi)
    net = 0 if policy.network or abi < 4 else ll.BIND_TCP | ll.CONNECT_TCP
    scoped = ll.SCOPE_ABSTRACT_UNIX_SOCKET | ll.SCOPE_SIGNAL if abi >= 6 else 0
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
    temp = str(policy.temp)
    env = {"TMPDIR": temp, "TMP": temp, "TEMP": temp, "HOME": temp}
    return Confinement(fd, policy.temp, lambda: lock.restrict(fd), env)
