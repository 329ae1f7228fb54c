"""A stdio MCP server's stderr, written to its log file with the server's secrets masked.

The child writes into a pipe, not into the file: a thread copies each line to the log after
masking every known secret of that server in the forms a program may print it (raw,
URL-encoded, base64) with the app log's own `Redactor` (app/observability/logs.py). The log is
created 0600, since it can still hold what the server chose to print about the user's data.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TextIO

from app.observability.logs import Redactor


def open_private_log(path: Path) -> IO[str]:
    """The log file, truncated, readable by the user only (also when it existed before)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "w", encoding="utf-8", errors="replace")


def _copy(source: IO[str], log: IO[str], mask: Redactor) -> None:
    with source, log:
        for line in source:
            log.write(mask(line))
            log.flush()  # the tail is read while the server runs (connect errors quote it)


@contextlib.contextmanager
def redacted_stderr(path: Path, secrets: Iterable[str]) -> Iterator[TextIO]:
    """Yields the file object to hand the child as its stderr."""
    log = open_private_log(path)
    read_fd, write_fd = os.pipe()
    source = os.fdopen(read_fd, "r", encoding="utf-8", errors="replace")
    sink = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
    copier = threading.Thread(target=_copy, args=(source, log, Redactor(secrets)), daemon=True)
    copier.start()
    try:
        yield sink
    finally:
        # Our end closes now; the copier ends by itself when the child (stopped by the SDK) and
        # any process it left behind close theirs. Not joined: this runs on the event loop.
        sink.close()
