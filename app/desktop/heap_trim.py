"""Give the memory start-up freed back to the OS (glibc's `malloc_trim`), once, when idle.

Building the app, serving the page and loading both windows allocate and free a lot on the
Python side and in Qt WebEngine's browser half (both in this process). glibc keeps freed
chunks in its arenas, so the process stays as large as its start-up peak; measured under
bench/bench_desktop.py, trimming once after start-up returned 20-50 MB of the Python process's
PSS (docs/decisions.md). Elsewhere than glibc Linux this does nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from app.support.heap import trim_heap

__all__ = ["trim_heap", "trim_when_settled"]

log = logging.getLogger(__name__)

SETTLE_S = 1.0  # after the last start-up step, so in-flight replies have been freed too
WAIT_MAX_S = 30.0


def trim_when_settled(
    waits: list[Callable[[float], bool]], trim: Callable[[], bool] = trim_heap, settle_s: float = SETTLE_S
) -> threading.Thread:
    """On a daemon thread: wait (bounded) for each start-up step, then `settle_s`, then trim."""

    def run() -> None:
        for wait in waits:
            wait(WAIT_MAX_S)
        threading.Event().wait(settle_s)
        released = trim()
        log.debug("heap trimmed after start-up: %s", released)

    thread = threading.Thread(target=run, name="heap-trim", daemon=True)
    thread.start()
    return thread
