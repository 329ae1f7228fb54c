"""The Sandboxed mode's confinement for a turn, and the report of `cashcode config sandbox`.

Availability is probed at each turn (one syscall): a setting or `CASHCODE_SANDBOX=off` may
change while the app runs, and a turn must never believe in a sandbox that cannot start. Whether
private namespaces work costs a child process to find out; the caller may hand in a kept answer
(the app asks once in its life: decision 437).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from app.api import models as m
from app.contracts.tools import SandboxSpec
from app.sandbox.probe import landlock_abi, private_namespaces, probe
from app.sandbox.secrets import never_readable
from app.settings.paths import AppPaths
from app.settings.user_settings import UserSettings


def app_folders(paths: AppPaths) -> tuple[Path, ...]:
    return (paths.data_dir, paths.config_dir, paths.log_dir, paths.cache_dir)


def sandbox_spec(
    paths: AppPaths,
    settings: UserSettings,
    env: Mapping[str, str],
    namespaces: Callable[[Mapping[str, str]], bool] = lambda env: private_namespaces(env)[0],
) -> SandboxSpec:
    abi, reason = landlock_abi(env)
    home = Path(env.get("HOME") or Path.home())
    hidden = never_readable(home, env, (*app_folders(paths), *(Path(p) for p in settings.sandbox_hidden)))
    readable = tuple(Path(p) for p in settings.sandbox_readable)
    private = abi >= 1 and namespaces(env)
    return SandboxSpec(
        available=abi >= 1, reason=reason, hidden=hidden, readable=readable, namespaces=private
    )


def sandbox_report(paths: AppPaths, settings: UserSettings, env: Mapping[str, str]) -> m.SandboxReport:
    found = probe(env)
    home = Path(env.get("HOME") or Path.home())
    hidden = never_readable(home, env, (*app_folders(paths), *(Path(p) for p in settings.sandbox_hidden)))
    if not found.available:
        plan = (
            "Sandboxed mode asks before every command, as Ask before writing does "
            f"(not sandboxed: {found.reason})."
        )
    else:
        if found.user_namespaces:
            net = (
                "each program has a private network namespace (no network at all, UDP included; "
                "only a loopback of its own) and a private /tmp (its writes there never reach the "
                "host's /tmp)"
                + ("; TCP connect and bind are blocked by Landlock too" if found.tcp_rules else "")
            )
        elif found.tcp_rules:
            net = (
                "TCP connect and bind are blocked (Landlock filters TCP by port, not by host); UDP is "
                f"not filtered and /tmp is not private (no private namespaces: {found.namespaces_reason})"
            )
        else:
            net = (
                "the kernel's Landlock cannot filter the network (ABI < 4): commands that need it "
                f"are not stopped (no private namespaces: {found.namespaces_reason})"
            )
        plan = (
            "Sandboxed mode runs exec, approved git and Skill scripts without asking, confined by "
            f"{found.reason}: read the system and the workspace, write the workspace and a private "
            f"temp folder; {net}. Sandboxed MCP servers get the same, except those allowed the "
            "network: Landlock alone, any host."
        )
    return m.SandboxReport(
        landlock_abi=found.landlock_abi,
        available=found.available,
        reason=found.reason,
        tcp_rules=found.tcp_rules,
        user_namespaces=found.user_namespaces,
        namespaces_reason="" if found.user_namespaces else found.namespaces_reason,
        bwrap=found.bwrap,
        plan=plan,
        never_readable=[str(p) for p in hidden],
        readable=[str(Path(p)) for p in settings.sandbox_readable],
    )
