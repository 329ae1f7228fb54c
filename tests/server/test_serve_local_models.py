"""`cashcode serve` against a llama.cpp-like server (issue 34): a provider saved through the route
the provider form calls sends its timeout, temperature and max tokens, a `read_file` round trip
completes, and a failing server's own message reaches the turn's error."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import ClientConnection, connect

from app.testing.fake_llm import FakeLLMServer
from tests.server.process import ServeProcess, isolated_env, serve_process

KEY = "sk-serve-local-0123456789"


async def _events_until(ws: ClientConnection, final: set[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async with asyncio.timeout(60):
        while not events or events[-1]["type"] not in final:
            batch = json.loads(await ws.recv())
            events.extend(batch)
    return events


async def _turn(served: ServeProcess, llm: FakeLLMServer) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Save a provider as the form does, then send one message and collect its events."""
    headers = served.bearer
    form = {
        "id": None,
        "name": "Llama",
        "kind": "chat_completions",
        "base_url": llm.openai_base_url,
        "api_key": KEY,
        "timeout_s": 42,
        "model_settings": [{"model": "*", "temperature": 0.3, "max_output_tokens": 50}],
    }
    async with (
        httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=60) as client,
        connect(f"ws://127.0.0.1:{served.port}/api/events", additional_headers=headers, proxy=None) as ws,
    ):
        saved = (await client.post("/api/invoke/providers.save", json=form, headers=headers)).json()
        assert saved["ok"] is True, saved
        assert (saved["data"]["timeout_s"], saved["data"]["model_settings"][0]["temperature"]) == (42, 0.3)
        chat_id = (await client.post("/api/invoke/chats.create", json={}, headers=headers)).json()["data"][
            "id"
        ]
        model = {"provider_id": saved["data"]["id"], "model": "fake-model"}
        sent = await client.post(
            "/api/invoke/chat.send",
            json={"chat_id": chat_id, "text": "read data.txt", "model": model},
            headers=headers,
        )
        assert sent.json()["ok"] is True, sent.json()
        events = await _events_until(ws, {"turn_done", "turn_failed"})
        detail = (
            await client.post("/api/invoke/chats.get", json={"chat_id": chat_id}, headers=headers)
        ).json()
    return events, detail["data"]


async def test_a_read_file_round_trip_completes_against_llama_cpp_with_the_forms_limits(
    tmp_path: Path,
) -> None:
    env = isolated_env(tmp_path)
    (tmp_path / "workspace" / "data.txt").write_text("secret sauce")
    with FakeLLMServer(valid_keys={KEY}, quirks=["llama_cpp"]) as llm:
        llm.script(
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "data.txt"}}]},
            {"text": "It says secret sauce."},
        )
        with serve_process(["--no-open", "--port", "0"], env) as served:
            events, detail = await _turn(served, llm)
        requests = llm.model_requests()
    assert events[-1]["type"] == "turn_done", events
    assert "".join(e["text"] for e in events if e["type"] == "delta") == "It says secret sauce."
    # 1: streamed with tools, closed empty (200, no event); 2: whole; 3: null content refused;
    # 4: "" accepted.
    assert [(r.status, bool(r.body.get("stream"))) for r in requests] == [
        (200, True),
        (200, False),
        (500, False),
        (200, False),
    ]
    assert "secret sauce" in str(requests[-1].body["messages"])
    for request in requests:
        assert request.body["tool_choice"] == "auto"
        assert (request.body["temperature"], request.body["max_tokens"]) == (0.3, 50)
        assert request.headers["x-stainless-read-timeout"] == "42.0"
    assert [m["role"] for m in detail["messages"]][-1] == "assistant"


async def test_the_servers_own_message_reaches_the_turns_error(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    with FakeLLMServer(valid_keys={KEY}) as llm:
        llm.script(*[{"error": 500, "error_message": "llama_decode returned -3"}] * 4)
        with serve_process(["--no-open", "--port", "0"], env) as served:
            events, _ = await _turn(served, llm)
        sent = len(llm.model_requests())
    failed = events[-1]
    assert failed["type"] == "turn_failed", events
    assert "llama_decode returned -3" in failed["error"]["message"]
    assert failed["error"]["params"]["server_message"] == "llama_decode returned -3"
    assert sent == 2
