"""A stdio MCP server under the sandbox (issue 36, decisions 365-367).

The SDK's stdio client starts the process itself, so the confinement rides on the child guard
that already wraps every server (app/mcp/child_guard.py): the app builds the Landlock rules of
the "workspace" policy here (every error reported before anything starts), writes them as JSON
into the server's private temp folder, and the guard restricts itself with them before it starts
the server. The policy: read the system, the PATH folders and the workspace; write the
workspace and the private temp folder; read the server's install folder and the interpreter its
program names (a uv-made venv's Python, node); never the hidden paths; TCP only when the user
allowed the network for this server (Landlock filters TCP by port, not by host). Where user
namespaces are allowed, a server without the network grant also gets a private network and
/tmp (app/sandbox/launch.py; the guard enters them before it restricts itself).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.contracts.tools import SandboxSpec
from app.mcp.config import ServerEntry
from app.settings.paths import AppPaths
from app.settings.user_settings import SettingsStore

PLAN_FILE = "landlock-plan.json"
# The catalog installs each server into `<cache>/mcp_servers/<id>/` (app/mcp_catalog/installer.py).
INSTALL_DIR = "mcp_servers"


@dataclass(frozen=True)
class McpSandbox:
    """The sandbox the app offers MCP servers now: availability, hidden/readable paths, the
    workspace (settings may change it, so it is read at each connect)."""

    spec: SandboxSpec
    workspace: Path
    data_root: Path | None = None  # `<data>/mcp_catalog`: each server's own folder there is writable
    # A preview's probe (app/mcp/app_probe.py): read the server's install folder and the system,
    # write only the private temp folder (no workspace, no data folder, no extra readable paths).
    probe: bool = False


SandboxSource = Callable[[], McpSandbox]


@dataclass(frozen=True)
class Confined:
    """A server about to start confined: the guard's extra arguments, the env it gets."""

    guard_args: tuple[str, ...]
    env: Mapping[str, str]
    temp: Path

    def close(self) -> None:
        shutil.rmtree(self.temp, ignore_errors=True)


class SandboxUnavailable(RuntimeError):
    """The server is set to run sandboxed but no sandbox can start: it is not started."""


def sandbox_source(
    paths: AppPaths, settings: SettingsStore, env: Mapping[str, str], workspace: Callable[[], Path]
) -> SandboxSource:
    """The McpSandbox at each connect: the same hidden and readable paths as the Sandboxed
    mode's (app/api/sandbox_setup.py), probed anew (a setting or CASHCODE_SANDBOX may change).
    Whether private namespaces can be made costs a child process to find out, and the server
    list asks for each server: that answer is kept for the app's life."""
    namespaces: list[bool] = []

    def current() -> McpSandbox:
        from app.sandbox.probe import landlock_abi, private_namespaces
        from app.sandbox.secrets import never_readable

        abi, reason = landlock_abi(env)
        if abi >= 1 and not namespaces:
            namespaces.append(private_namespaces(env)[0])
        user = settings.load()
        home = Path(env.get("HOME") or Path.home())
        own = (paths.data_dir, paths.config_dir, paths.log_dir, paths.cache_dir)
        hidden = never_readable(home, env, (*own, *(Path(p) for p in user.sandbox_hidden)))
        readable = tuple(Path(p) for p in user.sandbox_readable)
        spec = SandboxSpec(
            available=abi >= 1,
            reason=reason,
            hidden=hidden,
            readable=readable,
            namespaces=abi >= 1 and namespaces[0],
        )
        return McpSandbox(spec, workspace(), paths.data_dir / "mcp_catalog")

    return current


def status(entry: ServerEntry, available: bool, reason: str, private: bool = False) -> str:
    """What `mcp list` and the server view say: "sandboxed" / "not sandboxed (why)"; `private`:
    the machine allows a private network and /tmp (given only without the network grant)."""
    if entry.transport != "stdio":
        return ""
    if not entry.sandbox:
        return "not sandboxed (off for this server)"
    if not available:
        return f"not sandboxed ({reason}): it will not start until the sandbox is turned off for it"
    if entry.network:
        return "sandboxed, network allowed (any host)"
    return "sandboxed, private network and /tmp" if private else "sandboxed"


def server_readable(argv: Sequence[str], path_env: str) -> tuple[Path, ...]:
    """The folders a server needs to read: its program's install folder and interpreter, and
    the install folder of each script file its arguments name (`node …/dist/index.js`). Only
    files count: a folder argument (the root a filesystem server is given) is never granted."""
    prog = Path(argv[0])
    found: list[Path] = [_install_folder(prog), _prefix(prog)]
    interpreter = _shebang(prog, path_env)
    if interpreter is not None:
        found.append(_prefix(interpreter))
        if (interpreter.parent.parent / "pyvenv.cfg").is_file():  # a script run by a venv's Python
            found.append(interpreter.parent.parent)
    home = _venv_home(_install_folder(prog) / "venv" / "pyvenv.cfg") or _venv_home(
        prog.parent.parent / "pyvenv.cfg"
    )
    if home is not None:
        found.append(_prefix(home / "python"))
    if (prog.parent.parent / "pyvenv.cfg").is_file():  # a venv's program: its site-packages
        found.append(prog.parent.parent)
    found += [_install_folder(Path(a)) for a in argv[1:] if os.path.isabs(a) and os.path.isfile(a)]
    return tuple(dict.fromkeys(found))


def confine_server(entry: ServerEntry, program: str, env: Mapping[str, str], box: McpSandbox) -> Confined:
    """Build the server's ruleset and write it for the guard. Raises SandboxUnavailable."""
    # ctypes and the policy: only for a sandboxed server
    from app.sandbox.confine import SandboxError, private_temp, ruleset_plan
    from app.sandbox.landlock import Landlock
    from app.sandbox.policy import Policy, path_folders, union

    if not box.spec.available:
        raise SandboxUnavailable(f"the sandbox is not available: {box.spec.reason}")
    lock = Landlock.load()
    abi = lock.abi() if lock is not None else 0
    if abi < 1:
        raise SandboxUnavailable("the sandbox is not available: the kernel has no Landlock")
    temp = private_temp()
    workspace = temp if box.probe else box.workspace
    if any(_within(Path(os.path.realpath(workspace)), Path(os.path.realpath(h))) for h in box.spec.hidden):
        workspace = temp  # the workspace lies in a folder kept private (the app's data): temp only
    own: tuple[Path, ...] = ()
    # where the catalog points a server's data file (its memory); never for a probe
    if box.data_root is not None and not box.probe:
        own = (box.data_root / entry.name,)
        own[0].mkdir(parents=True, exist_ok=True)
    policy = Policy(
        workspace=workspace,
        writable=own,
        temp=temp,
        readable=path_folders(env.get("PATH", "")),
        exceptions=union(
            () if box.probe else box.spec.readable,
            server_readable([program, *entry.args], env.get("PATH", "")),
        ),
        hidden=box.spec.hidden,
        network=entry.network,
    )
    try:
        plan = ruleset_plan(policy, abi)
    except SandboxError as exc:
        shutil.rmtree(temp, ignore_errors=True)
        raise SandboxUnavailable(f"the sandbox could not start: {exc}") from exc
    plan_file = temp / PLAN_FILE
    data = {"abi": plan.abi, "fs": plan.fs, "net": plan.net, "scoped": plan.scoped, "rules": plan.rules}
    plan_file.write_text(json.dumps(data), encoding="utf-8")
    # A server allowed the network keeps the host's network (and /tmp): Landlock alone.
    private = box.spec.namespaces and not entry.network
    t = "/tmp" if private else str(temp)  # inside the private namespaces /tmp is `temp`
    return Confined(
        guard_args=("--landlock", str(plan_file), *(("--private",) if private else ())),
        env={"TMPDIR": t, "TMP": t, "TEMP": t, "HOME": t},
        temp=temp,
    )


def _install_folder(prog: Path) -> Path:
    """`<cache>/mcp_servers/<id>` for a catalog install, the folder holding the outermost
    `node_modules` for an npm package, else the file's own folder."""
    parts = prog.parts
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == INSTALL_DIR:
            return Path(*parts[: i + 2])
    if "node_modules" in parts[:-1]:
        return Path(*parts[: parts.index("node_modules")])
    return prog.parent


def _shebang(prog: Path, path_env: str) -> Path | None:
    """The interpreter a script names on its first line (`env NAME` looked up on PATH)."""
    with contextlib.suppress(OSError), prog.open("rb") as f:
        head = f.read(256)
        if not head.startswith(b"#!"):
            return None
        words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
        if not words:
            return None
        if Path(words[0]).name == "env" and len(words) > 1:
            found = shutil.which(words[-1] if words[1].startswith("-") else words[1], path=path_env or None)
            return Path(found) if found else None
        return Path(words[0])
    return None


def _prefix(interpreter: Path) -> Path:
    """`<prefix>` of `<prefix>/bin/python3.12` (followed through symlinks: a venv's python)."""
    real = Path(os.path.realpath(interpreter))
    return real.parent.parent if real.parent.name == "bin" else real.parent


def _venv_home(cfg: Path) -> Path | None:
    with contextlib.suppress(OSError):
        for line in cfg.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                return Path(value.strip())
    return None


def _within(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)
