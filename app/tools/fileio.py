"""Low-level file helpers shared by the file tools: strict UTF-8 reading and atomic writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from app.contracts.tools import ToolError
from app.support.atomic import KEEP_MODE, NEW_FILE_MODE, atomic_write_bytes

BINARY_SNIFF_BYTES = 8192


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first block is the classic (and git's) binary heuristic."""
    return b"\x00" in head


def read_utf8(path: Path, shown: str, *, max_bytes: int) -> str:
    """Read a whole UTF-8 text file up to `max_bytes`; refuse binary or non-UTF-8 content."""
    data = read_bytes_nofollow(path, shown, max_bytes=max_bytes + 1)
    if len(data) > max_bytes:
        raise ToolError(f"'{shown}' is larger than {max_bytes} bytes; refusing to load it whole.")
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolError(f"'{shown}' looks like a binary file; only UTF-8 text files are supported.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"'{shown}' is not valid UTF-8 text (byte {exc.start}).") from exc


def read_bytes_nofollow(path: Path, shown: str, *, max_bytes: int) -> bytes:
    """Read at most `max_bytes` from a regular file, refusing a symlink swapped in after checks."""
    fd = open_regular(path, shown)
    with os.fdopen(fd, "rb") as fh:
        return fh.read(max_bytes)


def open_regular(path: Path, shown: str) -> int:
    """Open a regular file read-only without following a final symlink.

    O_NONBLOCK keeps a FIFO from blocking the open; it has no effect on regular files.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError as exc:
        raise ToolError(f"File '{shown}' does not exist.") from exc
    except OSError as exc:
        raise ToolError(f"Cannot open '{shown}': {exc.strerror}.") from exc
    ensure_regular(fd, shown)
    return fd


def ensure_regular(fd: int, shown: str) -> None:
    """Check an open fd is a regular file (checked on the fd, so no swap can slip in); close it if not."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ToolError(f"'{shown}' is not a regular file.")


def atomic_write(path: Path, data: bytes, *, overwrite: bool) -> None:
    """Write `data` to `path` so readers see the old or the new file, never a half-written one
    (app/support/atomic.py). An overwritten file keeps its permissions; a new one gets what
    open() would give it. Without `overwrite`, the final step is a hard link, which fails if the
    target appeared in the meantime — no clobbering even under a race."""
    try:
        atomic_write_bytes(path, data, mode=KEEP_MODE if overwrite else NEW_FILE_MODE, replace=overwrite)
    except FileExistsError as exc:
        raise ToolError(f"'{path.name}' already exists; pass overwrite: true to replace it.") from exc
