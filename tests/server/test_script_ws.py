"""`/ws` (the CashCode WebSocket protocol for scripts) against the real app and the scripted LLM."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from app.server.script_ws import DENIED_NOTE
from tests.api.conftest import (  # noqa: F401  (fixtures used by name)
    AppMaker,
    add_provider,
    fake_llm,
    make_app,
    ok,
    paths,
    secrets,
    workspace,
)
from tests.server.conftest import WAIT_S, Served, serve_built, wait_until


@pytest.fixture
async def served_app(make_app: AppMaker, fake_llm: Any, static_dir: Path) -> AsyncIterator[Served]:  # noqa: F811
    app, _ = await make_app()
    provider_id = await add_provider(app, fake_llm, "chat_completions")
    # What the UI's model picker leaves behind; /ws messages use the remembered model.
    app.ctx.settings.remember_model(provider_id, "fake-model")
    async with serve_built(static_dir, app) as served:
        yield served


def script_socket(served: Served, headers: dict[str, str] | None = None) -> Any:
    return connect(
        f"ws://127.0.0.1:{served.port}/ws",
        additional_headers=served.bearer if headers is None else headers,
        open_timeout=WAIT_S,
        proxy=None,
    )


async def recv(ws: ClientConnection) -> dict[str, Any]:
    async with asyncio.timeout(WAIT_S):
        frame: dict[str, Any] = json.loads(await ws.recv())
    return frame


async def until_done(ws: ClientConnection) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1]["event"] != "done":
        frames.append(await recv(ws))
    return frames


async def test_a_message_streams_deltas_then_stream_end_and_done_and_is_stored(
    served_app: Served,
    fake_llm: Any,  # noqa: F811
) -> None:
    fake_llm.script({"text": "Hello from CashCode.", "chunk_size": 3})
    async with script_socket(served_app) as ws:
        ready = await recv(ws)
        assert ready["event"] == "ready" and ready["client_id"]
        chat_id = ready["chat_id"]
        meta = {
            "mentioned_skills": [{"name": "code-review", "label": "Code Review"}],
            "selected_mcp_connectors": [{"server": "github", "label": "GitHub"}],
        }
        await ws.send(json.dumps({"type": "message", "chat_id": chat_id, "content": "hi", "metadata": meta}))
        frames = await until_done(ws)
    kinds = [f["event"] for f in frames]
    assert kinds[-2:] == ["stream_end", "done"], kinds
    assert set(kinds[:-2]) == {"delta"}
    assert "".join(f["text"] for f in frames if f["event"] == "delta") == "Hello from CashCode."
    assert all(f["chat_id"] == chat_id for f in frames)
    assert len({f["stream_id"] for f in frames if "stream_id" in f}) == 1
    assert isinstance(frames[-1]["duration_sec"], float | int) and frames[-1]["duration_sec"] >= 0
    detail = await ok(served_app.app, "chats.get", {"chat_id": chat_id})  # type: ignore[arg-type]
    user = detail["messages"][0]
    assert (user["role"], user["content"]) == ("user", "hi")
    assert [(m["kind"], m["name"], m["label"]) for m in user["mentions"]] == [
        ("skill", "code-review", "Code Review"),
        ("mcp", "github", "GitHub"),
    ]


async def test_a_tool_that_would_ask_is_denied_and_the_tool_result_says_so(
    served_app: Served,
    fake_llm: Any,  # noqa: F811
    workspace: Path,  # noqa: F811
) -> None:
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hi"}}]},
        {"text": "I could not write it."},
    )
    async with script_socket(served_app) as ws:
        chat_id = (await recv(ws))["chat_id"]
        await ws.send(json.dumps({"type": "message", "chat_id": chat_id, "content": "write a note"}))
        frames = await until_done(ws)
    call = next(f for f in frames if f["event"] == "tool_call")
    result = next(f for f in frames if f["event"] == "tool_result")
    assert call["tool_name"] == result["tool_name"] == "write_file"
    assert result["result"].startswith(DENIED_NOTE)
    assert not (workspace / "notes.txt").exists()
    assert "".join(f["text"] for f in frames if f["event"] == "delta") == "I could not write it."


async def test_the_window_sees_a_script_chat_live(served_app: Served, fake_llm: Any) -> None:  # noqa: F811
    fake_llm.script({"text": "Seen by the UI too."})
    ui_events = connect(
        f"ws://127.0.0.1:{served_app.port}{served_app.prefix}/api/events",
        origin=served_app.origin,  # type: ignore[arg-type]
        additional_headers=served_app.cookie_header,
        open_timeout=WAIT_S,
        proxy=None,
    )
    async with ui_events as ui, script_socket(served_app) as ws:
        chat_id = (await recv(ws))["chat_id"]
        await ws.send(json.dumps({"type": "message", "chat_id": chat_id, "content": "hi"}))
        await until_done(ws)
        seen: list[dict[str, Any]] = []
        async with asyncio.timeout(WAIT_S):
            while not any(e["type"] == "turn_done" for e in seen):
                seen.extend(json.loads(await ui.recv()))
    assert {e["chat_id"] for e in seen if "turn_id" in e} == {chat_id}
    assert "".join(e["text"] for e in seen if e["type"] == "delta") == "Seen by the UI too."


async def test_ping_new_chat_attach_and_bad_frames(served_app: Served, fake_llm: Any) -> None:  # noqa: F811
    existing = await ok(served_app.app, "chats.create")  # type: ignore[arg-type]
    async with script_socket(served_app) as ws:
        first = await recv(ws)
        await ws.send(json.dumps({"type": "ping"}))
        assert await recv(ws) == {"event": "pong"}
        await ws.send(json.dumps({"type": "new_chat"}))
        second = await recv(ws)
        assert second["event"] == "ready" and second["chat_id"] != first["chat_id"]
        assert second["client_id"] == first["client_id"]
        await ws.send(json.dumps({"type": "attach", "chat_id": existing["id"]}))
        assert await recv(ws) == {
            "event": "ready",
            "chat_id": existing["id"],
            "client_id": first["client_id"],
        }
        await ws.send(json.dumps({"type": "attach", "chat_id": "0" * 8 + "-0000-4000-8000-" + "0" * 12}))
        assert (await recv(ws))["event"] == "error"
        for bad in (
            "not json",
            "[1]",
            '{"type": "explode"}',
            "[" * 5000,
            '{"type": "message", "content": ""}',
        ):
            await ws.send(bad)
            frame = await recv(ws)
            assert frame["event"] == "error" and frame["detail"], bad
        await ws.send(json.dumps({"type": "ping"}))
        assert await recv(ws) == {"event": "pong"}  # still alive after the bad frames
    listed = await ok(served_app.app, "chats.list")  # type: ignore[arg-type]
    # Announced ids become chats only when a message is sent: no empty chats.
    assert [c["id"] for c in listed["chats"]] == [existing["id"]]


async def test_cancel_stops_a_running_turn_and_ends_with_done(served_app: Served, fake_llm: Any) -> None:  # noqa: F811
    fake_llm.script({"text": "slow " * 400, "chunk_size": 1, "delay_s": 0.02})
    async with script_socket(served_app) as ws:
        chat_id = (await recv(ws))["chat_id"]
        await ws.send(json.dumps({"type": "message", "content": "go"}))
        assert (await recv(ws))["event"] == "delta"
        await ws.send(json.dumps({"type": "cancel", "chat_id": chat_id}))
        frames = await until_done(ws)
    assert frames[-1]["chat_id"] == chat_id
    assert "stream_end" in [f["event"] for f in frames]


async def test_without_the_bearer_token_the_upgrade_is_refused(served_app: Served) -> None:
    for headers in ({}, {"authorization": "Bearer wrong"}, served_app.cookie_header):
        with pytest.raises(InvalidStatus) as refused:
            async with script_socket(served_app, headers):
                pass
        assert refused.value.response.status_code == 401


async def test_an_attached_script_never_answers_the_windows_approvals(
    served_app: Served,
    fake_llm: Any,  # noqa: F811
    workspace: Path,  # noqa: F811
) -> None:
    app: Any = served_app.app
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "ui.txt", "content": "from the UI"}}]},
        {"text": "Written."},
    )
    chat = await ok(app, "chats.create")
    asked: list[Any] = []
    unsubscribe = app.bus.subscribe(lambda e: asked.append(e) if e.type == "approval_required" else None)
    try:
        async with script_socket(served_app) as ws:
            await recv(ws)
            await ws.send(json.dumps({"type": "attach", "chat_id": chat["id"]}))
            assert (await recv(ws))["event"] == "ready"
            await ok(app, "chat.send", {"chat_id": chat["id"], "text": "write it"})  # the window's turn
            assert (await recv(ws))["event"] == "tool_call"
            await wait_until(lambda: bool(asked), "the window was asked")
            # Still pending for the window to answer: the script did not deny it.
            await ok(app, "chat.approve", {"approval_id": asked[0].approval_id, "decision": "once"})
            frames = await until_done(ws)
    finally:
        unsubscribe()
    result = next(f for f in frames if f["event"] == "tool_result")
    assert not result["result"].startswith(DENIED_NOTE)
    assert (workspace / "ui.txt").read_text(encoding="utf-8") == "from the UI"


async def test_a_message_may_name_its_own_new_chat_and_a_refused_one_leaves_no_chat(
    served_app: Served,
    fake_llm: Any,  # noqa: F811
) -> None:
    app: Any = served_app.app
    fake_llm.script({"text": "Hi."})
    own = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
    refused = "16fd2706-8baf-433b-82eb-8c7fada847da"
    too_many = {"mentioned_skills": [{"name": f"s{i}", "label": f"S{i}"} for i in range(9)]}
    async with script_socket(served_app) as ws:
        await recv(ws)
        await ws.send(json.dumps({"type": "message", "chat_id": own, "content": "hello"}))
        assert (await until_done(ws))[-1]["chat_id"] == own
        await ws.send(
            json.dumps({"type": "message", "chat_id": refused, "content": "x", "metadata": too_many})
        )
        frame = await recv(ws)
        assert frame["event"] == "error" and frame["chat_id"] == refused
        await ws.send(json.dumps({"type": "message", "chat_id": "not-a-uuid", "content": "x"}))
        assert (await recv(ws))["event"] == "error"
    assert [c["id"] for c in (await ok(app, "chats.list"))["chats"]] == [own]
