"""The one atomic file write: readers see the old file or the new one, never a half-written one,
and a crash leaves no partial file behind.

Temp file in the same folder (same filesystem, so the rename is atomic), created exclusively
and owner-only by `tempfile.mkstemp`; write, flush, fsync; the file mode applied before the
rename; `os.replace`; then the folder fsynced so the rename itself is durable (POSIX). On any
failure the temp file is removed and the target is untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

KEEP_MODE = -1  # `mode=KEEP_MODE`: the existing file's permissions (new files: as NEW_FILE_MODE)
NEW_FILE_MODE = -2  # `mode=NEW_FILE_MODE`: what open() would give a new file (0o666 less the umask)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None, replace: bool = True) -> None:
    """`mode`: permissions of the written file (None: owner-only 0o600, as mkstemp makes it;
    KEEP_MODE, NEW_FILE_MODE). `replace=False`: see `atomic_write_with`."""
    atomic_write_with(path, lambda fh: fh.write(data), mode=mode, replace=replace)


def atomic_write_text(
    path: Path, text: str, *, mode: int | None = None, encoding: str = "utf-8", replace: bool = True
) -> None:
    atomic_write_bytes(path, text.encode(encoding), mode=mode, replace=replace)


def atomic_write_with(
    path: Path, write: Callable[[BinaryIO], object], *, mode: int | None = None, replace: bool = True
) -> None:
    """Like `atomic_write_bytes`, with a writer given the open binary temp file (streams).
    `replace=False`: never clobber — the last step is a hard link, which fails with
    FileExistsError if `path` appeared meanwhile (a filesystem without hard links falls back to
    check-then-replace, atomic for readers but best-effort against races)."""
    path = Path(path)
    final_mode = _resolve_mode(path, mode)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if final_mode is not None:
            os.chmod(tmp, final_mode)
        if replace:
            os.replace(tmp, path)
        else:
            _link_no_clobber(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def _link_no_clobber(tmp: Path, path: Path) -> None:
    try:
        os.link(tmp, path)
    except PermissionError:
        if path.exists():
            raise FileExistsError(path) from None
        os.replace(tmp, path)
        return
    tmp.unlink()


@contextlib.contextmanager
def atomic_target(path: Path, *, mode: int | None = None) -> Iterator[Path]:
    """A temp path beside `path` for writers that need a file name (e.g. a ZIP writer); when the
    block ends without an error it is fsynced and moved over `path`, else removed."""
    path = Path(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        final_mode = _resolve_mode(path, mode)
        if final_mode is not None:
            os.chmod(tmp, final_mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make a rename in `directory` durable (POSIX only; Windows cannot open folders)."""
    if os.name != "posix":
        return
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _resolve_mode(path: Path, mode: int | None) -> int | None:
    if mode == KEEP_MODE:
        try:
            return path.stat().st_mode & 0o7777
        except OSError:
            return _new_file_mode()
    if mode == NEW_FILE_MODE:
        return _new_file_mode()
    return mode


def _new_file_mode() -> int:
    return 0o666 & ~_umask()


def _umask() -> int:
    # Linux reports it without changing it; elsewhere reading it means setting it and putting it
    # straight back (a short window in which another thread's new file could get 0o022).
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask
