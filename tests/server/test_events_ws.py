from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, TypedDict

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from app.contracts.events import Delta, ToolCallEvent, TurnDone, TurnStarted
from app.server.events_ws import SLOW_CLIENT_CLOSE_CODE
from tests.server.conftest import WAIT_S, Served, serve_stub, wait_until


class TurnIds(TypedDict):
    chat_id: str
    turn_id: str


T: TurnIds = {"chat_id": "c1", "turn_id": "t1"}


def ws_url(served: Served) -> str:
    return f"ws://127.0.0.1:{served.port}{served.prefix}/api/events"


def open_events(served: Served, origin: str | None = None, cookie: bool = True) -> Any:
    headers = served.cookie_header if cookie else {}
    return connect(
        ws_url(served),
        origin=origin or served.origin,  # type: ignore[arg-type]
        additional_headers=headers,
        open_timeout=WAIT_S,
        proxy=None,
    )


async def receive_until_done(ws: ClientConnection) -> list[list[dict[str, Any]]]:
    batches: list[list[dict[str, Any]]] = []
    async with asyncio.timeout(WAIT_S):
        while not batches or batches[-1][-1]["type"] != "turn_done":
            batches.append(json.loads(await ws.recv()))
    return batches


async def test_events_arrive_as_json_array_batches_in_publish_order(served: Served) -> None:
    async with open_events(served) as ws:
        await wait_until(lambda: served.app.bus.subscriber_count == 1, "subscribed")
        served.app.bus.publish(TurnStarted(**T, provider_id="p", model="m", user_text="hi"))
        await asyncio.sleep(0.05)  # let the first batch go out on its own
        served.app.bus.publish(
            Delta(**T, text="Hel"),
            Delta(**T, text="lo"),
            ToolCallEvent(**T, call_id="k1", name="read_file", arguments="{}"),
            Delta(**T, text="!"),
            TurnDone(**T, duration_ms=1.0, text="Hello!"),
        )
        batches = await receive_until_done(ws)
    assert all(isinstance(b, list) and b for b in batches)
    events = [e for b in batches for e in b]
    types = [e["type"] for e in events]
    assert types[0] == "turn_started"
    assert types[-1] == "turn_done"
    # Order kept; deltas merged only when adjacent (never across the tool call).
    assert [t for t in types if t != "delta"] == ["turn_started", "tool_call", "turn_done"]
    assert "".join(e["text"] for e in events if e["type"] == "delta") == "Hello!"
    before_tool = types.index("tool_call")
    assert "".join(e["text"] for e in events[:before_tool] if e["type"] == "delta") == "Hello"


async def test_consecutive_deltas_published_together_arrive_merged(served: Served) -> None:
    async with open_events(served) as ws:
        await wait_until(lambda: served.app.bus.subscriber_count == 1, "subscribed")
        served.app.bus.publish(
            *[Delta(**T, text=c) for c in "streaming"], TurnDone(**T, duration_ms=1.0, text="streaming")
        )
        batches = await receive_until_done(ws)
    events = [e for b in batches for e in b]
    assert events == [
        {"type": "delta", **T, "text": "streaming", "channel": "text"},
        TurnDone(**T, duration_ms=1.0, text="streaming").model_dump(mode="json"),
    ]


async def test_every_open_connection_gets_every_event(served: Served) -> None:
    async with open_events(served) as first, open_events(served) as second:
        await wait_until(lambda: served.app.bus.subscriber_count == 2, "both subscribed")
        served.app.bus.publish(TurnDone(**T, duration_ms=1.0, text="x"))
        assert (await receive_until_done(first))[-1][-1]["text"] == "x"
        assert (await receive_until_done(second))[-1][-1]["text"] == "x"


async def test_closing_the_socket_unsubscribes_from_the_bus(served: Served) -> None:
    async with open_events(served):
        await wait_until(lambda: served.app.bus.subscriber_count == 1, "subscribed")
    await wait_until(lambda: served.app.bus.subscriber_count == 0, "unsubscribed")


async def test_a_websocket_from_another_origin_is_refused_with_403(served: Served) -> None:
    for origin in ("http://evil.example", f"http://localhost:{served.port}"):
        with pytest.raises(InvalidStatus) as refused:
            async with open_events(served, origin=origin):
                pass
        assert refused.value.response.status_code == 403
    assert served.app.bus.subscriber_count == 0


async def test_a_websocket_without_the_cookie_is_refused_with_401(served: Served) -> None:
    with pytest.raises(InvalidStatus) as refused:
        async with open_events(served, cookie=False):
            pass
    assert refused.value.response.status_code == 401


async def test_a_websocket_with_a_foreign_host_is_refused(served: Served) -> None:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(
            ws_url(served),
            origin=f"http://evil.example:{served.port}",  # type: ignore[arg-type]
            additional_headers={"host": f"evil.example:{served.port}", **served.cookie_header},
            open_timeout=WAIT_S,
            proxy=None,
        ):
            pass
    assert refused.value.response.status_code == 400


async def test_a_client_that_falls_too_far_behind_is_closed_instead_of_buffering(static_dir: Path) -> None:
    async with serve_stub(static_dir, event_queue_limit=5) as served, open_events(served) as ws:
        await wait_until(lambda: served.app.bus.subscriber_count == 1, "subscribed")
        served.app.bus.publish(*[Delta(**T, text=str(i)) for i in range(50)])
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(WAIT_S):
                while True:
                    await ws.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == SLOW_CLIENT_CLOSE_CODE
        await wait_until(lambda: served.app.bus.subscriber_count == 0, "unsubscribed")
