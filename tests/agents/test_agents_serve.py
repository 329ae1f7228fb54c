"""Under `cashcode serve` (a real process): the agents' REST rows and `/api/invoke`, a chat
created with an agent over HTTP answering as that agent, and the seed's client (no agent)
still getting the default agent; `/ws` naming the agent of a new chat."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import ClientConnection, connect

from app.testing.fake_llm import FakeLLMServer
from tests.server.process import isolated_env, serve_process


def _seed(env: dict[str, str], base_url: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", base_url],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    provider_id: str = json.loads(out.stdout)["provider_id"]
    return provider_id


async def _event(ws: ClientConnection, kind: str, **match: str) -> dict[str, Any]:
    async with asyncio.timeout(60):  # a hang check, not a timing assertion
        while True:
            for event in json.loads(await ws.recv()):
                if event["type"] == kind and all(event.get(k) == v for k, v in match.items()):
                    found: dict[str, Any] = event
                    return found


async def _frame(ws: ClientConnection, kind: str) -> dict[str, Any]:
    async with asyncio.timeout(60):  # a hang check, not a timing assertion
        while True:
            frame: dict[str, Any] = json.loads(await ws.recv())
            if frame.get("event") == kind:
                return frame


async def test_agents_over_rest_and_a_chat_that_answers_as_its_agent(tmp_path: Path) -> None:
    env = isolated_env(tmp_path, {"CASHCODE_DREAM": "off"})
    with FakeLLMServer(default_text="hello") as llm:
        provider_id = await asyncio.to_thread(_seed, env, llm.openai_base_url)
        with serve_process(["--no-open", "--port", "0"], env) as served:
            h = served.bearer
            async with httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as c:
                spec = {"name": "Poet", "emoji": "🪶", "persona": "You are POET-PERSONA.", "skills": []}
                created = await c.post("/api/agents", json={"spec": spec}, headers=h)
                assert created.status_code == 201, created.text
                poet = created.json()["data"]
                assert (await c.post("/api/agents", json={"spec": spec}, headers=h)).status_code == 409
                bad = await c.post(
                    "/api/agents", json={"spec": {**spec, "name": "x", "mcp_servers": ["a b"]}}, headers=h
                )
                assert bad.status_code == 422
                listed = (await c.get("/api/agents", headers=h)).json()["data"]
                assert [a["spec"]["name"] for a in listed["agents"]] == ["default", "Poet"]
                assert (await c.get("/api/agents/poet", headers=h)).json()["data"]["id"] == poet["id"]
                assert (await c.delete("/api/agents/default", headers=h)).status_code == 400
                copy = await c.post(f"/api/agents/{poet['id']}/duplicate", json={}, headers=h)
                assert copy.status_code == 201 and copy.json()["data"]["spec"]["name"] == "Poet copy"
                edited = await c.put(
                    f"/api/agents/{copy.json()['data']['id']}",
                    json={"spec": {**spec, "name": "Bard"}},
                    headers=h,
                )
                assert edited.status_code == 200 and edited.json()["data"]["spec"]["name"] == "Bard"
                gone = await c.delete(f"/api/agents/{copy.json()['data']['id']}", headers=h)
                assert gone.status_code == 204

                async def turn(payload: dict[str, Any]) -> str:
                    chat = (await c.post("/api/invoke/chats.create", json=payload, headers=h)).json()["data"]
                    send = {
                        "chat_id": chat["id"],
                        "text": "hi",
                        "model": {"provider_id": provider_id, "model": "fake-model"},
                    }
                    async with connect(
                        f"ws://127.0.0.1:{served.port}/api/events", additional_headers=h, proxy=None
                    ) as ws:
                        assert (await c.post("/api/invoke/chat.send", json=send, headers=h)).json()["ok"]
                        await _event(ws, "turn_done", chat_id=chat["id"])
                    content: str = llm.model_requests()[-1].body["messages"][0]["content"]
                    return content

                assert (await turn({"agent_id": poet["id"]})).startswith("You are POET-PERSONA.")
                assert "POET-PERSONA" not in await turn({})  # the seed's clients: the default agent

            # /ws: `new_chat` (or a message) names the agent of the chat it creates.
            async with connect(f"ws://127.0.0.1:{served.port}/ws", additional_headers=h, proxy=None) as ws:
                await _frame(ws, "ready")
                await ws.send(json.dumps({"type": "new_chat", "agent_id": poet["id"]}))
                await _frame(ws, "ready")
                await ws.send(json.dumps({"type": "message", "content": "hi"}))
                await _frame(ws, "done")
                assert (
                    llm.model_requests()[-1]
                    .body["messages"][0]["content"]
                    .startswith("You are POET-PERSONA.")
                )
                await ws.send(
                    json.dumps(
                        {"type": "message", "chat_id": str(uuid.uuid4()), "content": "hi", "agent_id": "nope"}
                    )
                )
                assert "does not exist" in (await _frame(ws, "error"))["detail"]
