"""`/ws` steer and queue frames (issue 35 item 4), and the seed's own example client still working
while another connection steers its chat (it ignores the new `steered` frame)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

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
from tests.server.conftest import WAIT_S, Served
from tests.server.test_script_ws import (
    recv,
    script_socket,
    served_app,  # noqa: F401  (the fixture, used by name)
)
from tests.server.test_serve_process import seed_example_client

SLOW = {"text": "Hello Cash. " * 40, "chunk_size": 4, "delay_s": 0.05}


async def test_the_seed_example_client_finishes_while_another_connection_steers_its_chat(
    served_app: Served,  # noqa: F811
    fake_llm: Any,  # noqa: F811
) -> None:
    fake_llm.script(SLOW, {"text": "Noted: Cash Code."})
    seen: list[dict[str, Any]] = []
    url = f"ws://127.0.0.1:{served_app.port}/ws"
    client = asyncio.create_task(seed_example_client(url, served_app.bearer, seen))
    async with asyncio.timeout(WAIT_S):
        while not any(f.get("event") == "delta" for f in seen):  # noqa: ASYNC110  the client's own list
            await asyncio.sleep(0.02)
    chat_id = seen[0]["chat_id"]
    async with script_socket(served_app) as other:
        await recv(other)
        await other.send(
            json.dumps({"type": "steer", "chat_id": chat_id, "content": "my full name is Cash Code"})
        )
        async with asyncio.timeout(WAIT_S * 2):
            await client
    kinds = [f["event"] for f in seen]
    assert kinds[-1] == "done" and "steered" in kinds
    steered = next(f for f in seen if f["event"] == "steered")
    assert steered["text"] == "my full name is Cash Code" and steered["chat_id"] == chat_id
    after = "".join(f["text"] for f in seen[kinds.index("steered") :] if f["event"] == "delta")
    assert after == "Noted: Cash Code."
    last = fake_llm.model_requests()[-1].body["messages"]
    assert (last[-1]["role"], last[-1]["content"]) == ("user", "my full name is Cash Code")


async def test_queue_frames_send_two_later_turns_in_order_and_steer_without_a_turn_is_an_error(
    served_app: Served,  # noqa: F811
    fake_llm: Any,  # noqa: F811
) -> None:
    app: Any = served_app.app
    fake_llm.script(SLOW, {"text": "One."}, {"text": "Two."})
    async with script_socket(served_app) as ws:
        chat_id = (await recv(ws))["chat_id"]
        await ws.send(json.dumps({"type": "message", "chat_id": chat_id, "content": "start"}))
        assert (await recv(ws))["event"] == "delta"
        await ws.send(json.dumps({"type": "queue", "chat_id": chat_id, "content": "first"}))
        await ws.send(json.dumps({"type": "queue", "chat_id": chat_id, "content": "second"}))
        frames: list[dict[str, Any]] = []
        while [f["event"] for f in frames].count("done") < 3:
            frames.append(await recv(ws))
        queued = [f["position"] for f in frames if f["event"] == "queued"]
        assert queued == [1, 2]
        await ws.send(json.dumps({"type": "steer", "chat_id": chat_id, "content": "too late"}))
        error = await recv(ws)
        assert error["event"] == "error" and "no running turn" in error["detail"]
        await ws.send(json.dumps({"type": "steer", "content": " "}))
        assert (await recv(ws))["event"] == "error"
    stored = (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"]
    assert [m["content"] for m in stored if m["role"] == "user"] == ["start", "first", "second"]
    assert [m["content"] for m in stored if m["role"] == "assistant"][1:] == ["One.", "Two."]
    streams = [f["stream_id"] for f in frames if f["event"] == "delta"]
    assert len(set(streams)) == 3 and streams == sorted(streams)


async def test_rest_steer_and_queue_rows_reach_the_running_turn(
    served_app: Served,  # noqa: F811
    fake_llm: Any,  # noqa: F811
) -> None:
    app: Any = served_app.app
    fake_llm.script(SLOW, {"text": "Steered."}, {"text": "Queued answer."})
    chat = await ok(app, "chats.create")
    turn = (await ok(app, "chat.send", {"chat_id": chat["id"], "text": "go"}))["turn_id"]
    async with served_app.client() as c:
        h = served_app.bearer
        base = f"/api/chats/{chat['id']}"
        assert (await c.post(f"{base}/steer", json={"text": " "}, headers=h)).status_code == 400
        steered = await c.post(f"{base}/steer", json={"text": "shorter please"}, headers=h)
        assert steered.status_code == 200 and steered.json()["data"]["turn_id"] == turn
        queued = await c.post(f"{base}/queue", json={"text": "and then?"}, headers=h)
        assert queued.status_code == 200 and queued.json()["data"]["position"] == 1
        await app.turns.wait(chat["id"])
        while len(fake_llm.model_requests()) < 3 or app.turns.is_running(chat["id"]):  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        idle = await c.post(f"{base}/steer", json={"text": "late"}, headers=h)
        assert idle.status_code == 404
    stored = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert [(m["role"], m["content"]) for m in stored if m["role"] == "user"] == [
        ("user", "go"),
        ("user", "shorter please"),
        ("user", "and then?"),
    ]
    assert [m["steer"] for m in stored if m["role"] == "user"] == [False, True, False]
