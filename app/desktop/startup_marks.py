"""Optional start-up timestamps for benchmarks and field diagnosis.

With `CASHCODE_STARTUP_MARKS=1`, prints `CASHCODE_MARK <name> <epoch seconds>` to stderr when
the process starts the shell, when the window is shown and when the page has loaded; a
benchmark in another process can line those up with its own clock.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

ENV_VAR = "CASHCODE_STARTUP_MARKS"


def enabled() -> bool:
    return os.environ.get(ENV_VAR, "") not in ("", "0")


def mark(name: str) -> None:
    if enabled():
        print(f"CASHCODE_MARK {name} {time.time():.6f}", file=sys.stderr, flush=True)


def attach(window: Any) -> None:
    """Mark `shown` and `loaded` from pywebview's window events (fired on their own threads)."""
    if enabled():
        window.events.shown += lambda: mark("shown")
        window.events.loaded += lambda: mark("loaded")
