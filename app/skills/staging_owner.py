"""Who owns a staging work folder: a lock file beside it, held (flock) while the folder is in
use. The kernel drops the lock when its process dies, kill -9 included, so start-up can remove
the folder of a killed import at once instead of waiting for it to age (issue 24 item 1).
Where `fcntl` is missing (Windows) no lock is taken and folders are swept by age only."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"


def lock_path(work: Path) -> Path:
    return work.with_name(work.name + LOCK_SUFFIX)


def hold(lock: Path) -> int | None:
    """Create `lock` (it must not exist) and hold it; the fd to release, None without fcntl."""
    if fcntl is None:
        return None
    fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def release(fd: int | None, lock: Path) -> None:
    if fd is None:
        return
    with contextlib.suppress(OSError):
        lock.unlink()
    os.close(fd)


def orphaned(lock: Path) -> bool:
    """True when `lock` exists and no live process holds it (its owner died)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held: an import in another process is using the folder
    finally:
        os.close(fd)
    return True
