"""What a confined program may touch: the "workspace" policy, turned into Landlock rules.

Read (and execute): the system folders, the PATH folders, the workspace and any extra readable
folder (a Skill's own folder, paths from Settings). Write: the workspace and a private temp
folder. Never: the hidden paths (app/sandbox/secrets.py), even beneath a granted folder.

Landlock only allows, it cannot carve a hole out of an allowed tree. When a granted folder
contains a hidden path (the workspace is the home folder, or holds the app's data folder), the
folder is granted entry by entry around it: everything beside the hidden path is granted, the
hidden path is not, and nothing new can be created directly in the folders on the way down to
it (documented in docs/decisions.md). Symlinks are never granted themselves: access through one
is checked where it points.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from app.sandbox import landlock as ll

SYSTEM_READ = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/nix",
    "/snap",
    "/proc",
    "/sys",
)
# Character devices programs open routinely; /dev itself is listable, nothing else in it (a disk
# device would bypass every file rule).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx")
DEVICE_DIRS = ("/dev/pts",)
DEVICE_RIGHTS = ll.READ_FILE | ll.WRITE_FILE | ll.IOCTL_DEV | ll.TRUNCATE


class PolicyError(ValueError):
    """The policy cannot be built (the workspace is itself a hidden path, say)."""


@dataclass(frozen=True)
class Policy:
    workspace: Path
    temp: Path
    readable: tuple[Path, ...] = ()  # besides the system: the PATH folders
    # Named on purpose (a Skill's own folder, the user's Settings): readable even beneath a hidden
    # folder (user Skills live in the app's data folder); hidden paths inside them stay hidden.
    exceptions: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    # Like `exceptions`, but writable too (an MCP server's own data folder in the app's data).
    writable: tuple[Path, ...] = ()
    network: bool = False  # TCP connect/bind allowed
    system: tuple[str, ...] = field(default=SYSTEM_READ)


def path_folders(path_env: str) -> tuple[Path, ...]:
    """The absolute folders of a PATH value (so user-installed tools still start), and for a
    version manager's `shims` folder (pyenv, rbenv, nodenv, asdf, mise: `~/.pyenv/shims`) the
    manager's own folder too: a shim runs the real tool from beside it (`~/.pyenv/versions/…`),
    so without it `python3` under pyenv asked for "file access" in Sandboxed mode (decision 524).
    Hidden paths inside stay hidden (the rules carve them out as for any granted folder)."""
    out: list[Path] = []
    for p in path_env.split(os.pathsep):
        if not p or not os.path.isabs(p):
            continue
        folder = Path(p)
        out.append(folder)
        if folder.name == "shims" and folder.parent != folder.parent.parent:
            out.append(folder.parent)
    return tuple(dict.fromkeys(out))


def rules(policy: Policy) -> list[tuple[str, int]]:
    """(real path, rights) pairs for the ruleset, hidden paths carved out."""
    hidden = [_real(h) for h in policy.hidden if os.path.lexists(h)]
    workspace = _real(policy.workspace)
    if any(_within(workspace, h) for h in hidden):
        raise PolicyError(f"The workspace '{workspace}' is inside a folder the sandbox keeps private.")
    out: list[tuple[str, int]] = []
    granted: list[tuple[Path, int]] = [(Path(p), ll.READ) for p in policy.system]
    granted += [(p, ll.READ) for p in policy.readable]
    granted += [(workspace, ll.READ | ll.WRITE), (_real(policy.temp), ll.READ | ll.WRITE)]
    for root, rights in granted:
        if os.path.exists(root):
            _grant(_real(root), rights, hidden, out)
    named = [(p, ll.READ) for p in policy.exceptions] + [(p, ll.READ | ll.WRITE) for p in policy.writable]
    for root, rights in named:
        if os.path.exists(root):
            real = _real(root)
            _grant(real, rights, [h for h in hidden if h != real and _within(h, real)], out)
    out.append(("/dev", ll.READ_DIR))
    out += [(d, DEVICE_RIGHTS) for d in DEVICES if os.path.exists(d)]
    out += [(d, DEVICE_RIGHTS | ll.READ_DIR) for d in DEVICE_DIRS if os.path.isdir(d)]
    return out


def _grant(path: Path, rights: int, hidden: list[Path], out: list[tuple[str, int]]) -> None:
    if any(_within(path, h) for h in hidden):
        return
    inner = [h for h in hidden if _within(h, path)]
    if not inner:
        out.append((str(path), rights))
        return
    # Only the entries beside the hidden path; `path` itself stays ungranted.
    try:
        entries = list(os.scandir(path))
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink():
            continue
        _grant(Path(entry.path), rights, inner, out)


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def union(*groups: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(p for g in groups for p in g))
