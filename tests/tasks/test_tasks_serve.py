"""Under `cashcode serve` (a real process): the scheduler fires a task added by the CLI, its run
is in `tasks history` and in its chat; a read_only task is refused `write_file`; an ask_writes
task raises the approval and completes once it is answered through the API."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import ClientConnection, connect

from app.testing.fake_llm import FakeLLMServer
from tests.server.process import isolated_env, serve_process

WAIT_S = 60.0  # a hang check, not a timing assertion
WRITE = {"tool_calls": [{"name": "write_file", "arguments": {"path": "note.txt", "content": "hi"}}]}


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], env=env, capture_output=True, text=True, timeout=60
    )


def _seed(env: dict[str, str], base_url: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", base_url],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    provider_id: str = json.loads(out.stdout)["provider_id"]
    return provider_id


async def _invoke(
    client: httpx2.AsyncClient, headers: dict[str, str], route: str, body: dict[str, Any]
) -> Any:
    reply = (await client.post(f"/api/invoke/{route}", json=body, headers=headers)).json()
    assert reply["ok"], reply
    return reply["data"]


async def _event(ws: ClientConnection, kind: str, **match: str) -> dict[str, Any]:
    async with asyncio.timeout(WAIT_S):
        while True:
            for event in json.loads(await ws.recv()):
                if event["type"] == kind and all(event.get(k) == v for k, v in match.items()):
                    found: dict[str, Any] = event
                    return found


async def test_scheduled_read_only_and_ask_tasks_under_serve(tmp_path: Path) -> None:
    env = isolated_env(
        tmp_path,
        {
            "CASHCODE_TEST_TASKS_MIN_INTERVAL_S": "1",
            "CASHCODE_TEST_TASKS_POLL_S": "0.5",
            "CASHCODE_DREAM": "off",
        },
    )
    workspace = Path(env["WORKSPACE_DIR"])
    with FakeLLMServer(default_text="Tick ok") as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url)
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with (
                httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client,
                connect(
                    f"ws://127.0.0.1:{served.port}/api/events", additional_headers=headers, proxy=None
                ) as ws,
            ):
                # 1. The CLI adds a task beside the running server; the server's scheduler fires it.
                added = await asyncio.to_thread(
                    _cli, env, "tasks", "add", "ticker", "--prompt", "Tick", "--every", "2s"
                )
                assert added.returncode == 0, added.stderr
                task = (await _invoke(client, headers, "tasks.list", {}))["tasks"][0]
                # (a slot that comes while the first run still goes is recorded "skipped" first)
                first = await _event(ws, "task_run_finished", task_id=task["id"], status="ok")
                await _invoke(client, headers, "tasks.set_enabled", {"task_id": task["id"], "enabled": False})
                while any(r["status"] == "running" for r in await _history(client, headers, task["id"])):
                    await _event(ws, "task_run_finished")  # a run that started before the disable
                runs = await _history(client, headers, task["id"])
                fired = next(r for r in runs if r["id"] == first["run_id"])
                assert fired["trigger"] == "schedule" and fired["answer"] == "Tick ok"
                shown = await asyncio.to_thread(_cli, env, "tasks", "history", "ticker", "--json")
                assert fired["id"] in [r["id"] for r in json.loads(shown.stdout)], shown.stderr
                chat = await _invoke(client, headers, "chats.get", {"chat_id": fired["chat_id"]})
                assert [m["content"] for m in chat["messages"][:2]] == ["Tick", "Tick ok"]

                # 2. Read-only (named: new tasks default to sandboxed, issue 36): write_file is
                # refused and the run says so.
                llm.reset()
                llm.script(WRITE, {"text": "I may not write."})
                every = {"kind": "every", "seconds": 3600}
                draft = {"name": "writer", "prompt": "write", "schedule": every, "approval_mode": "read_only"}
                writer = (await _invoke(client, headers, "tasks.add", {"draft": draft}))["task"]
                run = await _invoke(client, headers, "tasks.run", {"task_id": writer["id"], "wait": True})
                assert run["status"] == "ok" and run["refused_tools"] == ["write_file"], run
                assert "refused by the task's approval mode: write_file" in run["error"]
                assert not (workspace / "note.txt").exists()

                # 3. Ask: the approval is raised, answered through the API, and the run completes.
                llm.script(WRITE, {"text": "Written after approval."})
                asking = {**draft, "name": "asker", "approval_mode": "ask_writes"}
                asker = (await _invoke(client, headers, "tasks.add", {"draft": asking}))["task"]
                await _invoke(client, headers, "tasks.run", {"task_id": asker["id"]})
                approval = await _event(ws, "approval_required")
                assert approval["tool"] == "write_file"
                pending = (await _history(client, headers, asker["id"]))[0]
                assert pending["waiting_approval"] is True and pending["chat_id"] == approval["chat_id"]
                await _invoke(
                    client,
                    headers,
                    "chat.approve",
                    {"approval_id": approval["approval_id"], "decision": "once"},
                )
                finished = await _event(ws, "task_run_finished", task_id=asker["id"])
                assert finished["task_id"] == asker["id"] and finished["status"] == "ok"
                done = (await _history(client, headers, asker["id"]))[0]
                assert done["answer"] == "Written after approval."
                assert (workspace / "note.txt").read_text() == "hi"
    assert not any("Traceback" in line for line in served.output), "".join(served.output)


async def _history(client: httpx2.AsyncClient, headers: dict[str, str], task_id: str) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = (await _invoke(client, headers, "tasks.history", {"task_id": task_id}))[
        "runs"
    ]
    return runs


async def test_a_run_killed_with_the_server_is_failed_on_the_next_start_without_a_half_turn(
    tmp_path: Path,
) -> None:
    env = isolated_env(tmp_path, {"CASHCODE_DREAM": "off"})
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url)
        llm.script({"text": "never finished " * 400, "chunk_size": 1, "delay_s": 0.05})
        draft = {"name": "slow", "prompt": "Go", "schedule": {"kind": "every", "seconds": 3600}}
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client:
                task = (await _invoke(client, headers, "tasks.add", {"draft": draft}))["task"]
                await _invoke(client, headers, "tasks.run", {"task_id": task["id"]})
                assert await llm.wait_until_async(lambda reqs: len(reqs) > 0, timeout=WAIT_S)
                # The run names its chat once `chat.send` has returned, which may be just after
                # the model's first request arrived: wait for it (bounded).
                for _ in range(100):
                    running = (await _history(client, headers, task["id"]))[0]
                    if running["chat_id"]:
                        break
                    await asyncio.sleep(0.1)
                assert running["status"] == "running" and running["chat_id"]
            served.proc.kill()  # kill -9: no shutdown code runs
            served.proc.wait(timeout=WAIT_S)
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client:
                after = (await _history(client, headers, task["id"]))[0]
                chat = await _invoke(client, headers, "chats.get", {"chat_id": running["chat_id"]})
                again = await _invoke(client, headers, "tasks.run", {"task_id": task["id"]})
    assert after["id"] == running["id"] and after["status"] == "failed"
    assert after["error"].startswith("interrupted")
    assert chat["messages"] == []  # no half turn
    assert again["status"] == "running"  # the task is not left blocked (not "skipped")
