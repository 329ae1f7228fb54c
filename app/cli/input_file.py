"""Read a file named on the command line, refusing what is not a bounded regular file.

`/dev/zero`, a FIFO or a multi-gigabyte file given to an import would otherwise be read into
memory whole (or block forever): the file is opened without blocking, checked on its open
descriptor (regular, within the cap) and read at most one byte past the cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# The same caps as the server's request bodies (app/server/invoke.py), not imported from there
# so the CLI does not load the web stack.
MAX_EXPORT_BYTES = 256 * 1024 * 1024  # a chat export with its files (`sessions import`)
MAX_CONFIG_BYTES = 1024 * 1024  # an MCP configuration (`mcp import`)


class InputFileError(Exception):
    """The file cannot be used; the message says why (shown to the user as is)."""


def read_input_file(path: Path, max_bytes: int) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(f"{path} is not a regular file; give the path of a file")
        if info.st_size > max_bytes:
            raise InputFileError(f"{path} is larger than {max_bytes:,} bytes; refusing to read it")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while being read
        raise InputFileError(f"{path} is larger than {max_bytes:,} bytes; refusing to read it")
    return data
