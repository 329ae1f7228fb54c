"""Issue 22 acceptance: the seed's walkthrough (`tool_search` → `mcp_prepare` →
`mcp_<server>_<tool>`) through a real `cashcode serve` process over its HTTP API and event
socket, with the built-in stdio test server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.asyncio.client import connect

from app.testing.fake_llm import FakeLLMServer
from tests.server.process import isolated_env, serve_process
from tests.tasks.test_tasks_serve import _event, _invoke, _seed


@pytest.mark.timeout(300)
async def test_the_walkthrough_passes_through_serve(tmp_path: Path) -> None:
    env = isolated_env(tmp_path, {"CASHCODE_MCP_TEST_SERVERS": "1", "CASHCODE_DREAM": "off"})
    with FakeLLMServer() as llm:
        provider = await asyncio.to_thread(_seed, env, llm.openai_base_url)
        llm.script(
            {"tool_calls": [{"name": "tool_search", "arguments": {"query": "stdio Hello Cash"}}]},
            {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
            {"tool_calls": [{"name": "mcp_test_stdio_mcp_say_hello", "arguments": {}}]},
            {"text": "The server says: Hello, Cash"},
        )
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with (
                httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client,
                connect(
                    f"ws://127.0.0.1:{served.port}/api/events", additional_headers=headers, proxy=None
                ) as ws,
            ):
                await _invoke(client, headers, "settings.update", {"approval_mode": "autonomous"})
                chat = await _invoke(client, headers, "chats.create", {})
                model = {"provider_id": provider, "model": "fake-model"}
                body = {"chat_id": chat["id"], "text": "call the stdio test server", "model": model}
                await _invoke(client, headers, "chat.send", body)
                done = await _event(ws, "turn_done", chat_id=chat["id"])
                assert done["text"] == "The server says: Hello, Cash"
        last = llm.model_requests()[-1].body
        results: list[Any] = [m.get("content") for m in last.get("messages", []) if m.get("role") == "tool"]
        assert results[-1] == "Hello, Cash", json.dumps(results)[:500]
    assert not any("Traceback" in line for line in served.output), "".join(served.output)
