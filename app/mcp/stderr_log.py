"""A stdio MCP server's stderr, written to its log file with the server's secrets masked.

The child writes into a pipe, not into the file: a thread copies each line to the log after
masking every known secret of that server in the forms a program may print it (raw,
URL-encoded, base64) with the app log's own `Redactor` (app/observability/logs.py). The log is
created 0600, since it can still hold what the server chose to print about the user's data.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TextIO

from app.observability.logs import Redactor

# A line that names what went wrong: "ModuleNotFoundError: …" (the last line of a Python
# traceback), "Error: Cannot find module …" (Node, followed by its stack), "npm ERR! …", "error: …".
_ERROR_LINE = re.compile(r"\w*(Error|Exception)\b|\berror\b|ERR!|\bfatal\b|\bpanic", re.IGNORECASE)
_STACK_LINE = re.compile(r"^\s*(at |File \"|Traceback \(most recent call last\))")
MAX_LINE = 300


def useful_line(tail: str) -> str:
    """The one line of a server's stderr that says why it failed: the last line naming an error
    (not a stack frame), else the last non-empty line; at most MAX_LINE characters, whole lines
    only (a cut fragment such as "ule>" tells nobody anything)."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    errors = [line for line in lines if _ERROR_LINE.search(line) and not _STACK_LINE.match(line)]
    picked = (errors or lines or [""])[-1]
    return picked if len(picked) <= MAX_LINE else picked[: MAX_LINE - 1] + "…"


def open_private_log(path: Path) -> IO[str]:
    """The log file, truncated, readable by the user only (also when it existed before)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "w", encoding="utf-8", errors="replace")


def _copy(source: IO[str], log: IO[str], mask: Redactor, copied: threading.Event) -> None:
    try:
        with source, log:
            for line in source:
                log.write(mask(line))
                log.flush()  # the tail is read while the server runs (connect errors quote it)
    finally:
        copied.set()


@contextlib.contextmanager
def redacted_stderr(path: Path, secrets: Iterable[str]) -> Iterator[tuple[TextIO, threading.Event]]:
    """Yields the file object to hand the child as its stderr, and an event set once everything
    the child wrote is in the log (after it and our end closed the pipe): a failed start waits
    for it, so the error can quote the server's last words (app/mcp/transports.py)."""
    log = open_private_log(path)
    read_fd, write_fd = os.pipe()
    source = os.fdopen(read_fd, "r", encoding="utf-8", errors="replace")
    sink = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
    copied = threading.Event()
    copier = threading.Thread(target=_copy, args=(source, log, Redactor(secrets), copied), daemon=True)
    copier.start()
    try:
        yield sink, copied
    finally:
        # Our end closes now; the copier ends by itself when the child (stopped by the SDK) and
        # any process it left behind close theirs. Not joined: this runs on the event loop.
        sink.close()
