"""The token-latency floor for bench_desktop.py: a bare pywebview window on the same backend
(Qt WebEngine) and venv as the app, receiving the same streamed Chat Completions response
through `window.run_js` into one plain DOM node. No app, no bridge, no Markdown, no Vue.

It is the least any pywebview program must do to show a stream: one thread reads the SSE
response (http.client, no SDK), another appends whatever arrived since its last call with one
`run_js` (run_js blocks until the page ran the script, so calls cannot be issued per token at
500 tok/s without falling behind; draining the queue is the cheapest possible batching).

After the page loaded it POSTs to `<base-url>/floor/chat/completions` in a loop; the bench's
server holds each request until the bench released it, so the bench decides when a stream
starts. Prints `CASHCODE_MARK loaded <epoch>` like the app.
Run: python bench/floor_window.py --base-url http://127.0.0.1:N [--size 1200x800]

`--size` gives the window the app's size: every frame of a stream is composited over the whole
window, so a smaller floor window pays less per frame for the same tokens (bench_desktop.py
passes the app's default size; without it the window has pywebview's default, 800x600).
"""

from __future__ import annotations

import argparse
import http.client
import json
import queue
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit

import webview

# The tokens must be on screen, as in the app (which wraps lines and follows the tail): the
# text wraps, and a column-reverse scroll container keeps its end in view without any script.
# (Before 2026-12-01 the <pre> neither wrapped nor scrolled, so after the first screenful the
# floor's frames no longer showed the tokens they were timed for: its per-frame raster and
# compositing work was smaller than any window that shows them.)
PAGE = (
    "<!doctype html><meta charset='utf-8'><title>floor</title>"
    "<style>html,body{height:100%;margin:0}"
    "body{display:flex;flex-direction:column-reverse;overflow-y:auto}"
    "#out{white-space:pre-wrap;margin:8px}</style><pre id='out'></pre>"
)


def mark(name: str) -> None:
    print(f"CASHCODE_MARK {name} {time.time():.6f}", file=sys.stderr, flush=True)


def read_streams(base_url: str, tokens: queue.SimpleQueue[str]) -> None:
    """POST, then put every content delta on the queue; repeat for the next stream."""
    parts = urlsplit(base_url)
    while True:
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=600)
        try:
            conn.request("POST", "/floor/chat/completions", body=b"{}",
                         headers={"Content-Type": "application/json"})  # fmt: skip
            response = conn.getresponse()
            for raw in response:
                line = raw.strip()
                if not line.startswith(b"data: ") or line == b"data: [DONE]":
                    continue
                delta = json.loads(line[6:])["choices"][0]["delta"]
                if delta.get("content"):
                    tokens.put(delta["content"])
        except OSError:
            return  # the bench's server went away: the run is over
        finally:
            conn.close()


def push(window: webview.Window, tokens: queue.SimpleQueue[str]) -> None:
    while True:
        text = [tokens.get()]
        while True:
            try:
                text.append(tokens.get_nowait())
            except queue.Empty:
                break
        window.run_js(f"document.getElementById('out').append({json.dumps(''.join(text))})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--size", default="800x600", help="WIDTHxHEIGHT of the window")
    args = parser.parse_args()
    width, height = (int(side) for side in args.size.split("x"))
    tokens: queue.SimpleQueue[str] = queue.SimpleQueue()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "index.html"
        page.write_text(PAGE, encoding="utf-8")
        window = webview.create_window("floor", url=str(page), width=width, height=height)
        assert window is not None

        def on_loaded() -> None:
            mark("loaded")
            threading.Thread(target=read_streams, args=(args.base_url, tokens), daemon=True).start()
            threading.Thread(target=push, args=(window, tokens), daemon=True).start()

        window.events.loaded += on_loaded

        def on_term(_signum: int, _frame: FrameType | None) -> None:
            threading.Thread(target=window.destroy, daemon=True).start()

        signal.signal(signal.SIGTERM, on_term)
        webview.start(gui="qt" if sys.platform.startswith("linux") else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
