"""EventPusher: moves app events from the core loop into the page, in batches.

The bus callback only does `SimpleQueue.put` (never blocks the core loop). A dedicated thread
waits for the first event, flushes at once when it has been idle for `interval_s`, otherwise
keeps collecting until `interval_s` after the start of the previous flush, merges text deltas
and calls `window.run_js` once per capped batch. run_js blocks until the JS ran and deadlocks
on the GUI thread, which is why it lives on its own thread (tech-notes §1.4).

Why 8 ms and not one 16 ms frame: a token that arrives just after a flush waits for the next
one, so the interval is paid in full at the p95. run_js itself takes ~5-15 ms on a loaded
machine (GUI-thread and renderer round trip) and blocks this thread, so under a fast stream
the calls are paced by run_js rather than by the interval (each call re-renders only the last
Markdown block in the page). Measured with
bench/bench_desktop.py on the 2-core Xvfb box at 500 tok/s, 3 interleaved runs each, same UI:
shell-only p95 ~29 → ~23 ms, full app p95 ~33 → ~31 ms, for ~20% more run_js calls. 4 ms was
worse at the p95 (the page and GUI thread fell behind). Two run_js calls in flight (not
waiting for the reply leg) gained ~2 ms in the shell and nothing in the full app, which is
CPU-bound on software compositing, so it was not worth a reordering protocol.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Final, Protocol

from webview.errors import WebViewException

from app.desktop.batching import (
    Event,
    dispatch_script,
    encoded_batches,
    merge_deltas,
    to_plain,
)

log = logging.getLogger(__name__)

_STOP: Final = object()
DEFAULT_INTERVAL_S: Final = 0.008
_WAKE: Final = object()  # set_interval(): recompute the deadline of the batch being collected


class JsRunner(Protocol):
    """The one pywebview `Window` method the pusher needs."""

    def run_js(self, script: str) -> Any: ...


class EventPusher:
    def __init__(
        self,
        window: JsRunner,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        max_events: int = 500,
        max_bytes: int = 256 * 1024,
        name: str = "js-pusher",
    ) -> None:
        self._window = window
        self._interval_s = interval_s
        self._max_events = max_events
        self._max_bytes = max_bytes
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        # Daemon: a run_js in flight when the window dies may never return; it must not keep
        # the process alive. stop() joins with a bound instead.
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._last_flush = float("-inf")
        self.flush_count = 0  # run_js calls made (for tests and benchmarks)
        self.event_count = 0  # events taken off the queue

    def emit(self, event: Event) -> None:
        """Bus subscriber. Thread-safe and non-blocking: only a queue put."""
        self._queue.put(event)

    def start(self) -> None:
        self._thread.start()

    def set_interval(self, interval_s: float) -> None:
        """Change the coalescing window; a batch being collected gets the new deadline at once.

        A hidden window does not paint, so its page only needs the events, not each frame's
        worth: fewer run_js calls leave the GUI thread (which also draws the visible window)
        to the window the user sees. Deltas merge, so nothing is lost or reordered."""
        self._interval_s = interval_s
        self._queue.put(_WAKE)

    def stop(self, timeout_s: float = 2.0) -> bool:
        """Flush what is queued, then end the thread. Returns False if it did not end in time."""
        self._queue.put(_STOP)
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        return not self._thread.is_alive()

    # ---- pusher thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            if first is _WAKE:
                continue
            batch, stopping = self._collect(first)
            self._flush(batch)
            if stopping:
                return

    def _collect(self, first: object) -> tuple[list[Event], bool]:
        """Gather events until the frame deadline or the event cap; report a stop request."""
        batch: list[Event] = [first]  # type: ignore[list-item]
        deadline = max(time.monotonic(), self._last_flush + self._interval_s)
        while len(batch) < self._max_events:
            remaining = deadline - time.monotonic()
            try:
                item = self._queue.get(timeout=remaining) if remaining > 0 else self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                return batch, True
            if item is _WAKE:
                deadline = max(time.monotonic(), self._last_flush + self._interval_s)
                continue
            batch.append(item)  # type: ignore[arg-type]
        return batch, False

    def _flush(self, batch: list[Event]) -> None:
        # Frames are counted from the start of a flush: run_js itself takes a round trip
        # through the GUI thread, and counting from its end would add that to every wait.
        self._last_flush = time.monotonic()
        self.event_count += len(batch)
        events = merge_deltas((to_plain(e) for e in batch), max_text_chars=self._max_bytes // 2)
        for batch_json in encoded_batches(events, self._max_events, self._max_bytes):
            try:
                self._window.run_js(dispatch_script(batch_json))
            except (WebViewException, RuntimeError) as exc:
                # Window not ready in time or already gone: the UI reloads state on mount.
                log.warning("dropped an event batch: %s", exc)
            self.flush_count += 1
