"""Small filesystem helpers: atomic file writes, fsync of folders, hashing, tree copies."""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
from pathlib import Path

from app.support.atomic import KEEP_MODE
from app.support.atomic import atomic_write_bytes as write_atomically
from app.support.atomic import fsync_dir as fsync_dir


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Readers see the old file or the new one; the file keeps its permissions."""
    write_atomically(path, data, mode=KEEP_MODE)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def hidden_sibling(path: Path, purpose: str) -> Path:
    """A dot-named sibling: the catalog and the watcher ignore dot entries in a Skill root."""
    return path.with_name(f".{path.name}.{purpose}-{secrets.token_hex(4)}")


def copy_tree(src: Path, dst: Path) -> None:
    """Full copy; symlinks are copied as links (validation keeps them inside the package)."""
    shutil.copytree(src, dst, symlinks=True)
    fsync_tree(dst)


def fsync_tree(root: Path) -> None:
    """Flush file contents before a rename publishes them, so a power cut cannot publish holes."""
    for current, _dirs, files in os.walk(root):
        for name in files:
            full = os.path.join(current, name)
            if os.path.islink(full):
                continue
            with contextlib.suppress(OSError), open(full, "rb") as handle:
                os.fsync(handle.fileno())  # not a write: flushes a staged tree before its rename
        fsync_dir(Path(current))


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def tree_files(root: Path) -> list[str]:
    """Relative POSIX paths of all regular files and links under root, sorted (deterministic)."""
    found: list[str] = []
    for current, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            found.append(Path(os.path.relpath(os.path.join(current, name), root)).as_posix())
    return sorted(found)
