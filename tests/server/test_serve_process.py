"""`cashcode serve` as a real process around the real application."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from app.testing.fake_llm import FakeLLMServer
from tests.server.process import STOP_TIMEOUT_S, isolated_env, serve_process


def test_serve_prints_a_start_url_serves_the_real_app_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    workspace = tmp_path / "chosen"
    workspace.mkdir()
    env = isolated_env(tmp_path)
    with serve_process(["--no-open", "--port", "0", "--workspace", str(workspace)], env) as served:
        with httpx2.Client(base_url=served.base_url, trust_env=False, timeout=30) as client:
            exchange = client.get(served.start_url)
            ui = exchange.headers["location"]
            # The browser's way: the cookie (kept by the client) on paths under the UI's prefix.
            info = client.post(f"{ui}api/invoke/app.info", json={}, headers={"origin": served.base_url})
            again = client.get(served.start_url)
        assert exchange.status_code == 303
        assert ui.startswith("/ui-") and ui.endswith("/")
        assert again.status_code == 401  # the start URL is one-time
        assert info.status_code == 200
        body = info.json()
        assert body["ok"] is True
        assert body["data"]["first_run"] is True
        assert Path(body["data"]["workspace"]) == workspace.resolve()
        served.proc.send_signal(signal.SIGINT)
        assert served.proc.wait(timeout=STOP_TIMEOUT_S) == 0
    assert not any("Traceback" in line for line in served.output), "".join(served.output)


def test_serve_json_lets_scripts_call_the_api_with_a_bearer_token_and_goes_away_on_exit(
    tmp_path: Path,
) -> None:
    env = isolated_env(tmp_path)
    runtime = tmp_path / "runtime" / "serve.json"
    with serve_process(["--no-open", "--port", "0"], env) as served:
        info = served.runtime_info()
        assert info == {
            "url": served.base_url,
            "port": served.port,
            "token": info["token"],
            "pid": served.proc.pid,
        }
        assert info["token"] != served.token
        assert runtime.stat().st_mode & 0o777 == 0o600
        with httpx2.Client(base_url=str(info["url"]), trust_env=False, timeout=30) as client:
            listed = client.post("/api/invoke/chats.list", json={}, headers=served.bearer)
            refused = client.post("/api/invoke/chats.list", json={})
        assert listed.status_code == 200 and listed.json()["ok"] is True, listed.text
        assert refused.status_code == 401
        assert any(str(runtime) in line for line in served.output)
    assert not runtime.exists()


def test_a_stale_serve_json_left_by_a_crash_is_replaced(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    runtime = tmp_path / "runtime" / "serve.json"
    runtime.parent.mkdir(parents=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    stale = {"url": "http://127.0.0.1:9", "port": 9, "token": "old", "pid": int(dead.stdout)}
    runtime.write_text(json.dumps(stale), encoding="utf-8")
    with serve_process(["--no-open", "--port", "0"], env) as served:
        info = served.runtime_info()
        assert info["pid"] == served.proc.pid
        assert info["token"] != "old"
    assert not runtime.exists()


def test_each_process_has_its_own_token(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    with serve_process(["--no-open", "--port", "0"], env) as first:
        old_token, old_port = first.token, first.port
    with serve_process(["--no-open", "--port", str(old_port)], env) as second:
        assert second.token != old_token
        with httpx2.Client(base_url=second.base_url, trust_env=False, timeout=30) as client:
            stale = client.get("/", headers={"cookie": f"cashcode_{old_port}={old_token}"})
        assert stale.status_code == 401


def _seed_provider(env: dict[str, str], base_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", base_url],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


async def _events_until(ws: ClientConnection, final: set[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async with asyncio.timeout(30):
        while not events or events[-1]["type"] not in final:
            batch = json.loads(await ws.recv())
            assert isinstance(batch, list)
            events.extend(batch)
    return events


async def test_a_chat_turn_streams_its_events_over_the_websocket(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed_provider, env, llm.openai_base_url)
        llm.script({"text": "Streamed over the socket.", "chunk_size": 2, "delay_s": 0.005})
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with (
                httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client,
                connect(
                    f"ws://127.0.0.1:{served.port}/api/events", additional_headers=headers, proxy=None
                ) as ws,
            ):
                chat = (await client.post("/api/invoke/chats.create", json={}, headers=headers)).json()
                assert chat["ok"] is True, chat
                chat_id = chat["data"]["id"]
                sent = await client.post(
                    "/api/invoke/chat.send", json={"chat_id": chat_id, "text": "hi"}, headers=headers
                )
                assert sent.json()["ok"] is True, sent.json()
                events = await _events_until(ws, {"turn_done", "turn_failed"})
                detail = await client.post(
                    "/api/invoke/chats.get", json={"chat_id": chat_id}, headers=headers
                )
    assert events[-1]["type"] == "turn_done", events
    assert "".join(e["text"] for e in events if e["type"] == "delta") == "Streamed over the socket."
    assert [m["role"] for m in detail.json()["data"]["messages"]] == ["user", "assistant"]


async def test_ctrl_c_during_a_turn_cancels_it_and_exits_cleanly(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed_provider, env, llm.openai_base_url)
        llm.script({"text": "never finished " * 200, "chunk_size": 1, "delay_s": 0.05})
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with (
                httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client,
                connect(
                    f"ws://127.0.0.1:{served.port}/api/events", additional_headers=headers, proxy=None
                ) as ws,
            ):
                chat_id = (await client.post("/api/invoke/chats.create", json={}, headers=headers)).json()[
                    "data"
                ]["id"]
                await client.post(
                    "/api/invoke/chat.send", json={"chat_id": chat_id, "text": "hi"}, headers=headers
                )
                await _events_until(ws, {"delta"})
                served.proc.send_signal(signal.SIGINT)
                code = await asyncio.to_thread(served.proc.wait, STOP_TIMEOUT_S)
    assert code == 0, "".join(served.output)
    assert not any("Traceback" in line for line in served.output), "".join(served.output)


def test_without_no_open_the_start_url_is_opened_in_the_browser(tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{opened}"\n', encoding="utf-8")
    browser.chmod(0o755)
    # $BROWSER is how Python's webbrowser module is told which browser to start.
    env = isolated_env(tmp_path, {"BROWSER": str(browser)})
    with serve_process(["--port", "0"], env) as served:
        deadline = time.monotonic() + 30
        # The script creates the file before writing it: wait for the content, not the file.
        while not (opened.exists() and opened.read_text(encoding="utf-8")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert opened.read_text(encoding="utf-8") == served.start_url


async def seed_example_client(url: str, headers: dict[str, str], seen: list[dict[str, Any]]) -> None:
    """The WebSocket example from the earlier CashCode README, as written there (its `print`
    kept as `seen`, filled as frames arrive), plus the bearer header `serve` asks for."""
    async with connect(url, additional_headers=headers, proxy=None) as ws:
        ready = json.loads(await ws.recv())
        chat_id = ready["chat_id"]
        await ws.send(
            json.dumps(
                {
                    "type": "message",
                    "chat_id": chat_id,
                    "content": "Hello, please remember that my name is Cash",
                }
            )
        )
        async for msg in ws:
            data = json.loads(msg)
            seen.append(data)
            if data.get("event") == "done":
                break


async def _seed_example_client(url: str, token: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    await seed_example_client(url, {"Authorization": f"Bearer {token}"}, seen)
    return seen


async def test_the_seed_websocket_example_chats_with_the_url_and_token_from_serve_json(
    tmp_path: Path,
) -> None:
    env = isolated_env(tmp_path)
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed_provider, env, llm.openai_base_url)
        llm.script({"text": "Nice to meet you, Cash.", "chunk_size": 4})
        with serve_process(["--no-open", "--port", "0"], env) as served:
            info = served.runtime_info()
            ws_url = str(info["url"]).replace("http://", "ws://", 1) + "/ws"
            async with asyncio.timeout(30):
                frames = await _seed_example_client(ws_url, str(info["token"]))
                try:
                    await _seed_example_client(ws_url, "not-the-token")
                except InvalidStatus as exc:
                    refused = exc.response.status_code
    assert frames[-1]["event"] == "done"
    assert "".join(f["text"] for f in frames if f["event"] == "delta") == "Nice to meet you, Cash."
    assert refused == 401
