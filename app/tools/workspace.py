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
import stat as stat_mod
from pathlib import Path

from app.contracts.tools import ToolContext, ToolError


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
                "may not write or run commands there. To create or change one of your own Skills, "
                "use agent_skill_manage."
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


def active_private_roots(ctx: ToolContext) -> list[Path]:
    """Private roots that matter for this workspace: those the workspace does not lie inside
    (when it does, e.g. the default `<data>/workspace`, the boundary already keeps tools out)."""
    workspace = _real(ctx.workspace)
    roots = [_real(r) for r in ctx.private_roots]
    return [r for r in roots if not is_within(workspace, r)]


def private_root_of(resolved: Path, ctx: ToolContext) -> Path | None:
    """The app folder `resolved` lies in, or None."""
    return next((r for r in active_private_roots(ctx) if is_within(resolved, r)), None)


def private_roots_below(resolved: Path, ctx: ToolContext) -> list[Path]:
    """App folders at or below folder `resolved` (a recursive walk from it would enter them)."""
    return [r for r in active_private_roots(ctx) if is_within(r, resolved)]


def hard_link_count(resolved: Path) -> int:
    """st_nlink of a regular file (0 for anything else). A count above 1 means another name for
    the same data may sit outside the workspace, so reading it is not "inside the workspace"."""
    try:
        st = os.stat(resolved, follow_symlinks=False)
    except OSError:
        return 0
    return st.st_nlink if stat_mod.S_ISREG(st.st_mode) else 0


def read_guard_reason(resolved: Path, ctx: ToolContext, shown: str) -> str | None:
    """Why reading/listing `resolved` needs the user's OK (app data, a hard link), or None."""
    root = private_root_of(resolved, ctx)
    if root is not None:
        return (
            f"'{shown}' is inside CashCode's own data folder ({root}): its database, settings and "
            "Skills are private to the app."
        )
    links = hard_link_count(resolved)
    if links > 1:
        return (
            f"'{shown}' is a hard-linked file ({links} names): another name for it may be outside "
            "the workspace."
        )
    return None
