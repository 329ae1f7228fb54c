"""EventBus: fan-out of typed events to the surfaces (desktop pusher, WebSocket, CLI).

Subscribers are called synchronously, in subscription order, on the core loop; they must be
quick (e.g. `queue.put`). One failing subscriber never keeps the event from the others. An event
published on a thread without a loop (store work on the store lane, app/store/lane.py) is handed
to the core loop the app bound (`bind`), so subscribers still run there only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from app.contracts.events import AppEvent

Subscriber = Callable[[AppEvent], None]

_log = logging.getLogger(__name__)


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns a function that removes it (safe to call twice)."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The core loop: events published on a plain thread (no loop of its own) go there."""
        self._loop = loop

    def publish(self, event: AppEvent) -> None:
        home = self._loop
        if home is not None and home.is_running() and not _has_running_loop():
            home.call_soon_threadsafe(self._deliver, event)
            return
        self._deliver(event)

    def _deliver(self, event: AppEvent) -> None:
        # Iterate over a copy: a subscriber may unsubscribe itself while handling the event.
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # subscriber boundary: log it, keep delivering to the rest
                _log.exception("event subscriber %r failed on %s", callback, event.type)


def _has_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True

