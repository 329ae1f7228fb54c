"""Bounded, symlink-safe tree walking and glob matching for glob/grep."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.contracts.tools import ToolError
from app.tools.workspace import is_within

SKIP_DIRS = frozenset({".git"})  # VCS internals are noise for the model and can be huge
MAX_VISITED = 200_000  # bound the walk on giant trees


@dataclass(frozen=True)
class Entry:
    path: Path  # real path (inside the workspace)
    rel: str  # posix path relative to the walk base
    is_dir: bool


def compile_glob(pattern: str) -> re.Pattern[str]:
    """Translate a glob (`*`, `?`, `[...]`, `**` as a whole segment) to a regex on posix paths."""
    if pattern.startswith("/") or re.match(r"^[A-Za-z]:", pattern):
        raise ToolError("Glob patterns must be relative to the search folder, not absolute.")
    parts = pattern.split("/")
    if ".." in parts:
        raise ToolError("Glob patterns may not contain '..'; they only match inside the workspace.")
    rx = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            rx += ".*" if last else "(?:[^/]+/)*"
        else:
            rx += _segment(part) + ("" if last else "/")
    return re.compile(rx + r"\Z", re.DOTALL)


def _segment(part: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(part):
        c = part[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (end := part.find("]", i + 2)) != -1:
            body = part[i + 1 : end]
            neg = body.startswith("!")
            body = body[1:] if neg else body
            out.append("[" + ("^" if neg else "") + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def walk(
    base: Path, workspace: Path, stop: threading.Event | None = None, skip: tuple[Path, ...] = ()
) -> Iterator[Entry]:
    """Yield entries below `base` in sorted order without following directory symlinks.

    Symlinked *files* are yielded only if their real path stays inside the workspace, so a link
    pointing out can never be listed as a match or read. Folders in `skip` (the app's private
    folders) are neither entered nor listed, and neither are links into them.
    """
    visited = 0
    for root, dirs, files in os.walk(base, followlinks=False):
        if stop is not None and stop.is_set():
            return
        root_path = Path(root)
        linked = {d for d in dirs if (root_path / d).is_symlink()}
        # Symlinked folders are listed (if they resolve inside) but never descended into.
        dirs[:] = sorted(
            d for d in dirs if d not in SKIP_DIRS and d not in linked and not _skipped(root_path / d, skip)
        )
        for name in sorted([*dirs, *linked]) + sorted(files):
            visited += 1
            if visited > MAX_VISITED:
                return
            full = root_path / name
            real = Path(os.path.realpath(full))
            if not is_within(real, workspace) or _skipped(real, skip):
                continue
            rel = full.relative_to(base).as_posix()
            yield Entry(path=real, rel=rel, is_dir=name in dirs or name in linked)


def _skipped(path: Path, skip: tuple[Path, ...]) -> bool:
    if not skip:
        return False
    real = Path(os.path.realpath(path))
    return any(is_within(real, root) for root in skip)
