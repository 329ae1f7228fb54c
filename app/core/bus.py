"""EventBus: fan-out of typed events to the surfaces (desktop pusher, WebSocket, CLI).

Subscribers are called synchronously, in subscription order, on the core loop; they must be
quick (e.g. `queue.put`). One failing subscriber never keeps the event from the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from app.contracts.events import AppEvent

Subscriber = Callable[[AppEvent], None]

_log = logging.getLogger(__name__)


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns a function that removes it (safe to call twice)."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: AppEvent) -> None:
        # Iterate over a copy: a subscriber may unsubscribe itself while handling the event.
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # subscriber boundary: log it, keep delivering to the rest
                _log.exception("event subscriber %r failed on %s", callback, event.type)
