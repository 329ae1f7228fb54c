"""`GET /api/events` (WebSocket): every bus event, as JSON arrays, in order.

Like the desktop pusher, a connection sends at once when it has been idle and otherwise at most
once per ~16 ms, merging consecutive text deltas. Each connection has a bounded queue; a client
too slow to keep up is closed with SLOW_CLIENT_CLOSE_CODE instead of buffering without limit
(the UI reconnects and reloads the chat from the API).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Coroutine
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketDisconnected

from app.contracts.events import AppEvent
from app.server.batching import to_batch
from app.server.contracts import ServedApp

BATCH_INTERVAL_S = 0.016
QUEUE_LIMIT = 10_000
SLOW_CLIENT_CLOSE_CODE = 1013  # "Try Again Later"
_CLOSE_TIMEOUT_S = 2.0


class EventRelay:
    """Bus subscriber for one connection. `push` runs on the event loop thread (the bus's)."""

    def __init__(self, limit: int, interval_s: float) -> None:
        self._queue: asyncio.Queue[AppEvent] = asyncio.Queue(maxsize=limit)
        self._interval_s = interval_s
        self._last_sent = float("-inf")
        self.overflowed = asyncio.Event()

    def push(self, event: AppEvent) -> None:
        if self.overflowed.is_set():
            return
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed.set()

    async def next_batch(self) -> list[AppEvent]:
        events = [await self._queue.get()]
        loop = asyncio.get_running_loop()
        wait = self._last_sent + self._interval_s - loop.time()
        if wait > 0:
            # Sent recently: let more events gather so the UI repaints at most once per frame.
            await asyncio.sleep(wait)
        while not self._queue.empty():
            events.append(self._queue.get_nowait())
        self._last_sent = loop.time()
        return events


async def _send_batches(ws: WebSocket, relay: EventRelay) -> None:
    while True:
        batch = to_batch(await relay.next_batch())
        await ws.send_text(json.dumps(batch, ensure_ascii=False, separators=(",", ":")))


async def _drain_incoming(ws: WebSocket) -> None:
    # Nothing is expected from the client yet (CashCode-compatible frames come later); reading
    # is still needed to notice the disconnect.
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return


async def _pump(ws: WebSocket, relay: EventRelay) -> None:
    await serve_connection(ws, relay, _send_batches(ws, relay), _drain_incoming(ws))


async def serve_connection(ws: WebSocket, relay: EventRelay, *jobs: Coroutine[Any, Any, object]) -> None:
    """Run a connection's jobs until one of them ends (the client left) or the relay overflowed
    (a client too slow to keep up is closed with SLOW_CLIENT_CLOSE_CODE). The other jobs are
    cancelled; a client vanishing mid-send is the normal end, any other error is raised."""
    overflow: asyncio.Task[object] = asyncio.create_task(relay.overflowed.wait())
    tasks: set[asyncio.Task[object]] = {overflow, *(asyncio.create_task(job) for job in jobs)}
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
    for result in results:
        # A client vanishing mid-send is the normal end of a connection, not an error.
        if isinstance(result, BaseException) and not isinstance(
            result, asyncio.CancelledError | WebSocketDisconnect | WebSocketDisconnected
        ):
            raise result
    if overflow in done:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, TimeoutError):
            async with asyncio.timeout(_CLOSE_TIMEOUT_S):
                await ws.close(code=SLOW_CLIENT_CLOSE_CODE, reason="client too slow")


def events_router(
    app: ServedApp, *, queue_limit: int = QUEUE_LIMIT, interval_s: float = BATCH_INTERVAL_S
) -> APIRouter:
    router = APIRouter()

    @router.websocket("/api/events")
    async def events(ws: WebSocket) -> None:
        await ws.accept()
        relay = EventRelay(queue_limit, interval_s)
        unsubscribe = app.bus.subscribe(relay.push)
        try:
            await _pump(ws, relay)
        finally:
            unsubscribe()

    return router
