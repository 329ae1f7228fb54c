"""What this machine supports, and what the app will do with it (`cashcode config sandbox`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from app.sandbox.landlock import Landlock

# "off" makes the sandbox unavailable (tests simulate a kernel without Landlock with it).
DISABLE_VAR = "CASHCODE_SANDBOX"


@dataclass(frozen=True)
class SandboxSupport:
    landlock_abi: int  # 0: none
    available: bool
    reason: str  # available: what confines; else why not
    user_namespaces: bool
    bwrap: str | None  # path of bubblewrap, if installed

    @property
    def tcp_rules(self) -> bool:
        return self.landlock_abi >= 4


def landlock_abi(env: Mapping[str, str]) -> tuple[int, str]:
    """(ABI, reason) — ABI 0 with the reason when there is none."""
    if env.get(DISABLE_VAR, "").strip().lower() in ("off", "0", "false", "no"):
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
    userns = _user_namespaces() if check_userns else False
    return SandboxSupport(abi, abi >= 1, reason, userns, bwrap)


def _user_namespaces() -> bool:
    """Whether an unprivileged user namespace can be made here (Ubuntu 24.04's AppArmor may
    refuse it). Tried in a child so this process stays as it is."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    try:
        done = subprocess.run(
            [unshare, "--user", "--map-root-user", "true"],
            capture_output=True,
            timeout=5,
            check=False,
            env={"PATH": os.environ.get("PATH", "")},
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
