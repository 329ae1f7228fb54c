"""Crash-safe folder publishing with renames, and recovery of an interrupted swap.

Why this is crash safe (SIGKILL or power loss at any instant):
- A new package is fully written and fsynced in a hidden sibling *before* any rename.
- `publish_new` is one `os.rename` of the whole folder: the Skill is absent or complete.
- `swap_in` (rollback) does two renames: live -> `.NAME.old-X`, then staged -> NAME.
  Crash before the first rename: live untouched, a staged sibling is left (recovery deletes it).
  Crash between the two: NAME is missing but `.NAME.old-X` is complete; recovery renames it back,
  so the old version returns. Crash after the second: NAME is the new version and recovery
  deletes the leftover `.NAME.old-X`. No state mixes files of two versions, because each
  version only ever exists as one whole folder. Recovery runs before every store operation.
- Portable renames are used on purpose: Linux's RENAME_EXCHANGE would make the swap a single
  step, but Windows and macOS lack an equivalent with the same semantics."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from app.contracts.errors import say
from app.skills.fsutil import fsync_dir, hidden_sibling, remove_tree
from app.skills.model import SkillConflict

StepHook = Callable[[str], None]

_OLD = re.compile(r"^\.(?P<name>.+)\.old-[0-9a-f]{8}$")
_TEMP = re.compile(r"^\..+\.(?:stage|rollback|deleting)-[0-9a-f]{8}$")


def no_hook(_step: str) -> None:
    return None


def publish_new(staged: Path, target: Path, hook: StepHook = no_hook) -> None:
    """Move a complete staged folder to `target`; refuse to replace anything."""
    if os.path.lexists(target):
        raise SkillConflict(say("skill.target_exists", name=target.name))
    hook("publish:before-rename")
    os.rename(staged, target)
    fsync_dir(target.parent)
    hook("publish:after-rename")


def swap_in(staged: Path, target: Path, hook: StepHook = no_hook) -> None:
    """Replace the folder `target` with `staged` (see the module docstring for the argument)."""
    old = hidden_sibling(target, "old")
    hook("swap:before-old-rename")
    os.rename(target, old)
    hook("swap:between-renames")
    os.rename(staged, target)
    fsync_dir(target.parent)
    hook("swap:after-renames")
    remove_tree(old)


def remove_atomically(target: Path, hook: StepHook = no_hook) -> None:
    """Hide the folder with one rename, then delete it: it is either listed whole or gone."""
    doomed = hidden_sibling(target, "deleting")
    os.rename(target, doomed)
    fsync_dir(target.parent)
    hook("delete:after-rename")
    remove_tree(doomed)


def recover_root(root: Path) -> None:
    """Finish or undo interrupted operations in one Skill root."""
    try:
        children = list(root.iterdir())
    except OSError:
        return
    for child in children:
        old = _OLD.match(child.name)
        if old is not None:
            live = root / old.group("name")
            if os.path.lexists(live):
                remove_tree(child)  # the swap completed; this is the replaced version
            else:
                os.rename(child, live)  # the swap stopped half way; bring the old version back
                fsync_dir(root)
        elif _TEMP.match(child.name):
            remove_tree(child)  # never published, or already unpublished


_STRAY_TMP = re.compile(r"^\.SKILL\.md\.[0-9a-z_]{8}\.tmp$")  # app/support/atomic.py temp names


def remove_stray_temp_files(package: Path) -> None:
    """A crash inside atomic_write_bytes can leave its temp file next to SKILL.md."""
    try:
        children = list(package.iterdir())
    except OSError:
        return
    for child in children:
        if _STRAY_TMP.match(child.name):
            child.unlink(missing_ok=True)
