"""Small filesystem helpers: atomic file writes, fsync of folders, hashing, tree copies."""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make a rename inside `path` durable. Not supported on Windows, where it is a no-op."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then os.replace: readers see old or new."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with tmp.open("xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, _existing_mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def _existing_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o644


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
                os.fsync(handle.fileno())
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
