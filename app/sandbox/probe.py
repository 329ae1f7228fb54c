"""What this machine supports, and what the app will do with it (`cashcode config sandbox`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from app.sandbox.landlock import Landlock

# "off" makes the sandbox unavailable (tests simulate a kernel without Landlock with it).
DISABLE_VAR = "CASHCODE_SANDBOX"
# "off": no private network and /tmp, Landlock alone (tests simulate a machine that refuses
# user namespaces, such as stock Ubuntu 24.04, with it).
NAMESPACES_VAR = "CASHCODE_SANDBOX_NAMESPACES"
_OFF = ("off", "0", "false", "no")


@dataclass(frozen=True)
class SandboxSupport:
    landlock_abi: int  # 0: none
    available: bool
    reason: str  # available: what confines; else why not
    user_namespaces: bool  # a private network and /tmp can be made (app/sandbox/launch.py)
    namespaces_reason: str  # why not, when they cannot
    bwrap: str | None  # path of bubblewrap, if installed (reported; the app does not need it)

    @property
    def tcp_rules(self) -> bool:
        return self.landlock_abi >= 4


def landlock_abi(env: Mapping[str, str]) -> tuple[int, str]:
    """(ABI, reason) — ABI 0 with the reason when there is none."""
    if env.get(DISABLE_VAR, "").strip().lower() in _OFF:
        return 0, f"disabled by {DISABLE_VAR}"
    if not sys.platform.startswith("linux"):
        return 0, f"Landlock is Linux only (this is {sys.platform})"
    lock = Landlock.load()
    abi = lock.abi() if lock is not None else 0
    if abi < 1:
        return 0, "the kernel has no Landlock (Linux 5.13 or later, enabled in the LSM list)"
    return abi, f"Landlock ABI {abi}" + (" (files and TCP)" if abi >= 4 else " (files only)")


def probe(env: Mapping[str, str], *, check_userns: bool = True) -> SandboxSupport:
    abi, reason = landlock_abi(env)
    bwrap = shutil.which("bwrap")
    userns, why = private_namespaces(env) if check_userns else (False, "not checked")
    return SandboxSupport(abi, abi >= 1, reason, userns, why, bwrap)


def private_namespaces(env: Mapping[str, str]) -> tuple[bool, str]:
    """(whether each confined program can get a private network and /tmp, why not). Tried in
    a child with the launcher's own code (app/sandbox/launch.py --probe), so the answer is
    what a run would meet: Ubuntu 24.04's AppArmor, a sysctl or a container may refuse it."""
    if env.get(NAMESPACES_VAR, "").strip().lower() in _OFF:
        return False, f"disabled by {NAMESPACES_VAR}"
    if not sys.platform.startswith("linux"):
        return False, "Linux only"
    from app.sandbox import launch

    argv = (
        [sys.executable, launch.LAUNCH_FLAG, "--probe"]
        if getattr(sys, "frozen", False)
        else [sys.executable, "-I", "-S", launch.__file__, "--probe"]
    )
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False, env={}, cwd="/")
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"the probe did not run: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, f"user namespaces are refused here ({said[-1] if said else done.returncode})"
    return True, "a private network and /tmp for each program"
