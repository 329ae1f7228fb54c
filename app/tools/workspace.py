"""Workspace boundary: map user-supplied paths to real paths inside the workspace.

Every file and exec tool resolves paths here, so there is one place that decides what
"inside the workspace" means: the *real* path (all symlinks resolved, `..` collapsed) must be
the workspace itself or below it. For a target that does not exist yet, `os.path.realpath`
resolves the existing prefix (including a symlinked parent) and appends the rest lexically,
which is exactly "resolve the nearest existing parent".

Residual risk (documented, not solved): a process with the same filesystem rights could swap
a directory for a symlink between this check and the actual open. Tools narrow the window
(reads open the resolved path with O_NOFOLLOW; writes replace atomically in the checked
parent) but cannot close it with portable path APIs.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.tools.base import ToolContext, ToolError


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


def is_within(path: Path, root: Path) -> bool:
    """True when real path `path` is `root` or below it (both already resolved)."""
    return path == root or path.is_relative_to(root)


def resolve_in_workspace(user_path: str, ctx: ToolContext, *, for_write: bool = False) -> Path:
    """Return the real path for `user_path`, or raise ToolError if it escapes the workspace.

    Relative paths are taken relative to the workspace. With `for_write`, paths inside a
    protected root (Skill roots) are refused too.
    """
    if not isinstance(user_path, str) or not user_path.strip():
        raise ToolError("A non-empty path is required.")
    if "\x00" in user_path:
        raise ToolError("Path contains a NUL byte.")
    workspace = _real(ctx.workspace)
    # "~" is deliberately not expanded: the home directory is outside the workspace anyway.
    candidate = Path(user_path)
    if not candidate.is_absolute():
        candidate = workspace / candidate
    resolved = _real(candidate)
    if not is_within(resolved, workspace):
        raise ToolError(
            f"Path '{user_path}' resolves to '{resolved}', which is outside the workspace "
            f"'{workspace}'. Only files inside the workspace can be used."
        )
    if for_write:
        check_not_protected(resolved, ctx, user_path)
    return resolved


def check_not_protected(resolved: Path, ctx: ToolContext, shown: str) -> None:
    """Refuse `resolved` when it lies in a protected root (only the Skill tool may write there)."""
    for root in ctx.protected_roots:
        if is_within(resolved, _real(root)):
            raise ToolError(
                f"Path '{shown}' is inside a protected Skill folder ('{root}'); generic tools "
                "may not write or run commands there."
            )


def display_path(resolved: Path, ctx: ToolContext) -> str:
    """Workspace-relative form for messages shown to the model ('.' for the root)."""
    workspace = _real(ctx.workspace)
    if resolved == workspace:
        return "."
    try:
        return resolved.relative_to(workspace).as_posix()
    except ValueError:
        return str(resolved)
