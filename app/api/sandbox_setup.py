"""The Sandboxed mode's confinement for a turn, and the report of `cashcode config sandbox`.

Availability is probed at each turn (one syscall): a setting or `CASHCODE_SANDBOX=off` may
change while the app runs, and a turn must never believe in a sandbox that cannot start.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.api import models as m
from app.contracts.tools import SandboxSpec
from app.sandbox.probe import landlock_abi, probe
from app.sandbox.secrets import never_readable
from app.settings.paths import AppPaths
from app.settings.user_settings import UserSettings


def app_folders(paths: AppPaths) -> tuple[Path, ...]:
    return (paths.data_dir, paths.config_dir, paths.log_dir, paths.cache_dir)


def sandbox_spec(paths: AppPaths, settings: UserSettings, env: Mapping[str, str]) -> SandboxSpec:
    abi, reason = landlock_abi(env)
    home = Path(env.get("HOME") or Path.home())
    hidden = never_readable(home, env, (*app_folders(paths), *(Path(p) for p in settings.sandbox_hidden)))
    readable = tuple(Path(p) for p in settings.sandbox_readable)
    return SandboxSpec(available=abi >= 1, reason=reason, hidden=hidden, readable=readable)


def sandbox_report(paths: AppPaths, settings: UserSettings, env: Mapping[str, str]) -> m.SandboxReport:
    found = probe(env)
    spec = sandbox_spec(paths, settings, env)
    if not found.available:
        plan = (
            "Sandboxed mode asks before every command, as Ask before writing does "
            f"(not sandboxed: {found.reason})."
        )
    else:
        net = (
            "TCP connect and bind are blocked (Landlock filters TCP by port, not by host; "
            "UDP is not filtered)"
            if found.tcp_rules
            else "the kernel's Landlock cannot filter the network (ABI < 4): "
            "commands that need it are not stopped"
        )
        plan = (
            "Sandboxed mode runs exec, approved git and Skill scripts without asking, confined by "
            f"{found.reason}: read the system and the workspace, write the workspace and a private "
            f"temp folder; {net}."
        )
    return m.SandboxReport(
        landlock_abi=found.landlock_abi,
        available=found.available,
        reason=found.reason,
        tcp_rules=found.tcp_rules,
        user_namespaces=found.user_namespaces,
        bwrap=found.bwrap,
        plan=plan,
        never_readable=[str(p) for p in spec.hidden],
        readable=[str(p) for p in spec.readable],
    )
