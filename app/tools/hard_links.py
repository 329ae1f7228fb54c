"""Hard links from a folder tree into the app's private folders.

An auto-approved recursive read (`grep -r PATTERN .`, `rg`) runs a system program that reads
every file below its folder. A hard link in the workspace to a file in the app's data or log
folders is the same file under another name, so such a read would hand the model the chat
database or a server's log. Named paths are already refused (their link count is above 1);
for a recursive read we look for files that share an inode with a private file. Both walks
are bounded: a tree too big to check makes the command ask instead of running unasked.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

MAX_ENTRIES = 50_000  # per walk; a bigger tree is "could not check", so the command asks

Inode = tuple[int, int]


class TooManyToCheck(Exception):
    """The walk would exceed MAX_ENTRIES."""


def _walk_files(root: Path, limit: int) -> Iterable[os.DirEntry[str]]:
    """Regular files below `root`, not following links; raises TooManyToCheck past `limit`."""
    seen = 0
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > limit:
                        raise TooManyToCheck(str(root))
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            yield entry
                    except OSError:
                        continue
        except OSError:
            continue  # unreadable folder: the command cannot read it either


def private_inodes(roots: Iterable[Path], limit: int = MAX_ENTRIES) -> frozenset[Inode]:
    """(device, inode) of every regular file in the private folders that has another name."""
    found: set[Inode] = set()
    for root in roots:
        for entry in _walk_files(root, limit):
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if st.st_nlink > 1:  # a file with one name cannot be linked from elsewhere
                found.add((st.st_dev, st.st_ino))
    return frozenset(found)


def link_into(tree: Path, inodes: frozenset[Inode], limit: int = MAX_ENTRIES) -> Path | None:
    """A file below `tree` that is a hard link to one of `inodes`, or None."""
    if not inodes:
        return None
    for entry in _walk_files(tree, limit):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) in inodes:
            return Path(entry.path)
    return None


def any_hard_link(tree: Path, limit: int = MAX_ENTRIES) -> Path | None:
    """A regular file below `tree` with more than one name, or None: its other name may be
    anywhere on the disk, so a read of it is not a read "inside the workspace" (as for a named
    path, app/tools/workspace.py)."""
    for entry in _walk_files(tree, limit):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            return Path(entry.path)
    return None
