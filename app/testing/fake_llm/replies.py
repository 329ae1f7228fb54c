"""What a handler answers, and how an answer is written to an ASGI connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from app.testing.fake_llm.script import WireChunk
from app.testing.fake_llm.state import FakeState

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


@dataclass(frozen=True)
class JsonReply:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamReply:
    media_type: str
    chunks: list[WireChunk]
    delay_s: float = 0.0
    disconnect_after: int | None = None  # counted in content chunks
    hang_s: float = 0.0  # wait this long before even the status line (a server that hangs)


Reply = JsonReply | StreamReply

INTERRUPTED = "The request was interrupted by a newer one (one slot)."


def _headers(content_type: str, extra: dict[str, str]) -> list[tuple[bytes, bytes]]:
    pairs = [(b"content-type", content_type.encode())]
    pairs += [(k.lower().encode(), v.encode()) for k, v in extra.items()]
    return pairs


async def send_json(reply: JsonReply, send: Send) -> None:
    # A str body goes out as text/plain (Ollama's `GET /` says "Ollama is running").
    plain = isinstance(reply.body, str)
    data = reply.body.encode() if plain else json.dumps(reply.body).encode()
    headers = _headers("text/plain; charset=utf-8" if plain else "application/json", reply.headers)
    headers.append((b"content-length", str(len(data)).encode()))
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def _wait_for_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def send_stream(
    reply: StreamReply,
    send: Send,
    receive: Receive,
    state: FakeState,
    rec: int,
    *,
    cut: asyncio.Event | None = None,
) -> None:
    """Write chunks with an optional per-chunk delay. Returning early without the final empty
    body makes uvicorn close the socket mid-body: the client sees a truncated stream. `cut`
    (one-slot mode) set by a newer request ends the stream that way too."""
    if reply.hang_s:
        waiting = asyncio.ensure_future(_wait_for_disconnect(receive))
        stop = {waiting} if cut is None else {waiting, asyncio.ensure_future(cut.wait())}
        await asyncio.wait(stop, timeout=reply.hang_s)
        for waiter in stop:
            waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiter
        if waiting.done() and not waiting.cancelled():
            state.update(rec, client_disconnected=True)
            return
        if cut is not None and cut.is_set():
            # Cut before the first token (a slow prompt on a CPU): the client sees a server error.
            state.update(rec, interrupted=True, status=500)
            await send_json(JsonReply(500, {"error": {"message": INTERRUPTED, "type": "server_error"}}), send)
            return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": _headers(reply.media_type, {"cache-control": "no-cache"}),
        }
    )
    gone = asyncio.ensure_future(_wait_for_disconnect(receive))
    interrupted = asyncio.ensure_future(cut.wait()) if cut is not None else None
    wake = {gone} if interrupted is None else {gone, interrupted}
    sent_content = 0
    cut_at = reply.disconnect_after
    try:
        for chunk in reply.chunks:
            if chunk.content and cut_at is not None and sent_content >= cut_at:
                state.update(rec, aborted=True)
                return
            if reply.delay_s:
                # Sleep, but wake at once if the client hangs up (cancel tests watch for that).
                await asyncio.wait(wake, timeout=reply.delay_s)
            if gone.done():
                state.update(rec, client_disconnected=True)
                return
            if interrupted is not None and interrupted.done():
                state.update(rec, interrupted=True)
                return
            await send({"type": "http.response.body", "body": chunk.data, "more_body": True})
            sent_content += chunk.content
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        state.update(rec, completed=True)
    finally:
        for waiter in wake:
            waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiter
