"""The floor for bench_desktop.py: a hello-world pywebview window on the same backend and venv.

It loads a one-line page from a file (so pywebview's built-in HTTP server runs, as in the app)
and prints the same `CASHCODE_MARK <name> <epoch>` lines as the app (`shown`, `loaded`).
It closes on SIGTERM. Run: QTWEBENGINE_CHROMIUM_FLAGS=--no-sandbox python bench/hello_window.py
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType

print(f"CASHCODE_MARK run {time.time():.6f}", file=sys.stderr, flush=True)

import webview  # noqa: E402  (the mark above must come before the import cost)


def mark(name: str) -> None:
    print(f"CASHCODE_MARK {name} {time.time():.6f}", file=sys.stderr, flush=True)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "index.html"
        page.write_text("<!doctype html><title>hello</title><h1>Hello, world</h1>", encoding="utf-8")
        window = webview.create_window("hello", url=str(page))
        assert window is not None
        window.events.shown += lambda: mark("shown")
        window.events.loaded += lambda: mark("loaded")

        def on_term(_signum: int, _frame: FrameType | None) -> None:
            threading.Thread(target=window.destroy, daemon=True).start()

        signal.signal(signal.SIGTERM, on_term)
        # HELLO_GUI=gtk: the same window on the GTK backend (bench/bench_webview_backends.py).
        default = "qt" if sys.platform.startswith("linux") else None
        webview.start(gui=os.environ.get("HELLO_GUI") or default)
    return 0


if __name__ == "__main__":
    sys.exit(main())
