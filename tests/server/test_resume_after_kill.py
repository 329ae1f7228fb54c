"""Acceptance (issue 35 item 3): a turn waiting on an approval survives kill -9 of `serve`.

A real `serve` process, the scripted LLM over HTTP with its request log, the real SQLite file:
the server is killed while the question waits and started again; the question is in the Inbox
again and answering it continues the turn from the pending call.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import ClientConnection, connect

from app.testing.fake_llm import FakeLLMServer
from tests.server.process import STOP_TIMEOUT_S, ServeProcess, isolated_env, serve_process

WAIT_S = 30.0


def _seed(env: dict[str, str], base_url: str, workspace: Path) -> str:
    """A provider for the scripted LLM and the workspace; the provider's id."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", base_url, "--workspace", str(workspace)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    provider_id: str = json.loads(done.stdout)["provider_id"]
    return provider_id


class Api:
    def __init__(self, served: ServeProcess) -> None:
        self.served = served
        self.client = httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30)

    async def call(self, route: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = await self.client.post(f"/api/invoke/{route}", json=payload or {}, headers=self.served.bearer)
        body: dict[str, Any] = reply.json()
        return body

    async def ok(self, route: str, payload: dict[str, Any] | None = None) -> Any:
        body = await self.call(route, payload)
        assert body["ok"] is True, (route, body)
        return body["data"]

    async def inbox(self) -> list[dict[str, Any]]:
        reply = await self.client.get("/api/inbox", headers=self.served.bearer)
        assert reply.status_code == 200, reply.text
        items: list[dict[str, Any]] = reply.json()["data"]["items"]
        return items

    async def pending_item(self) -> dict[str, Any]:
        async with asyncio.timeout(WAIT_S):
            while True:
                items = [i for i in await self.inbox() if i["status"] == "pending"]
                if items:
                    assert len(items) == 1, items
                    return items[0]
                await asyncio.sleep(0.05)

    async def aclose(self) -> None:
        await self.client.aclose()


async def _events(ws: ClientConnection, until: set[str]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(WAIT_S):
        while not any(e["type"] in until for e in seen):
            batch = json.loads(await ws.recv())
            seen.extend(batch if isinstance(batch, list) else [batch])
    return seen


@contextmanager
def _serve(env: dict[str, str]) -> Iterator[ServeProcess]:
    with serve_process(["--no-open", "--port", "0"], env) as served:
        yield served
    if served.proc.stdout is not None:  # ended (or killed): its output pipe is at its end
        served.proc.stdout.close()


def _kill_9(served: ServeProcess) -> None:
    served.proc.send_signal(signal.SIGKILL)
    served.proc.wait(timeout=STOP_TIMEOUT_S)


def _tool_messages(request_body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request_body["messages"] if m["role"] == "tool"]


async def _start_turn(
    env: dict[str, str], steps: list[dict[str, Any]], llm: FakeLLMServer, *, ran: int = 0
) -> str:
    """Serve #1: send a message, wait until its approval is in the Inbox (and `ran` tool results
    were announced), then kill -9 the server. Returns the chat id."""
    llm.script(*steps)
    with _serve(env) as served:
        api = Api(served)
        try:
            async with connect(
                f"ws://127.0.0.1:{served.port}/api/events", additional_headers=served.bearer, proxy=None
            ) as ws:
                chat_id = (await api.ok("chats.create"))["id"]
                await api.ok("chat.send", {"chat_id": chat_id, "text": "do the work"})
                events = await _events(ws, {"approval_required"})
                while sum(e["type"] == "tool_result" for e in events) < ran:
                    events += await _events(ws, {"tool_result"})
            await api.pending_item()
            _kill_9(served)
        finally:
            await api.aclose()
    return chat_id


async def test_kill_9_while_an_approval_waits_then_approving_it_after_the_restart_finishes_the_turn(
    tmp_path: Path,
) -> None:
    env = isolated_env(tmp_path)
    workspace = tmp_path / "workspace"
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url, workspace)
        write = {"name": "write_file", "arguments": {"path": "notes.txt", "content": "kept"}}
        chat_id = await _start_turn(
            env, [{"tool_calls": [write]}, {"text": "Written after the restart."}], llm
        )
        assert len(llm.model_requests()) == 1
        assert not (workspace / "notes.txt").exists()

        with _serve(env) as served:
            api = Api(served)
            try:
                item = await api.pending_item()  # listed again, from the checkpoint
                assert item["resumable"] is True and item["chat_id"] == chat_id
                assert item["tool"] == "write_file" and "notes.txt" in item["detail"]
                # Nothing of the unfinished turn is in the chat's history.
                assert (await api.ok("chats.get", {"chat_id": chat_id}))["messages"] == []
                async with connect(
                    f"ws://127.0.0.1:{served.port}/api/events", additional_headers=served.bearer, proxy=None
                ) as ws:
                    answered = await api.client.post(
                        f"/api/inbox/{item['id']}/answer", json={"decision": "once"}, headers=served.bearer
                    )
                    assert answered.status_code == 200, answered.text
                    events = await _events(ws, {"turn_done", "turn_failed"})
                detail = await api.ok("chats.get", {"chat_id": chat_id})
                left = [i for i in await api.inbox() if i["status"] == "pending"]
            finally:
                await api.aclose()

    assert events[-1]["type"] == "turn_done", events
    assert "".join(e["text"] for e in events if e["type"] == "delta").endswith("Written after the restart.")
    assert (workspace / "notes.txt").read_text() == "kept"
    # The very next model request carries the tool result; the first call was not made again.
    requests = llm.model_requests()
    assert len(requests) == 2
    resumed = requests[1].body["messages"]
    assert [m["role"] for m in resumed[-3:]] == ["user", "assistant", "tool"]
    assert resumed[-2]["tool_calls"][0]["function"]["name"] == "write_file"
    assert resumed[-1]["tool_call_id"] == resumed[-2]["tool_calls"][0]["id"]
    assert "notes.txt" in resumed[-1]["content"] and not resumed[-1]["content"].startswith("Error")
    # The chat holds exactly one whole turn.
    messages = detail["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert len({m["turn_id"] for m in messages}) == 1
    assert messages[-1]["content"] == "Written after the restart."
    assert left == []
    with sqlite3.connect(tmp_path / "data" / "cashcode.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM turn_checkpoints").fetchone() == (0,)


async def test_a_finished_sibling_call_is_not_run_again_after_the_restart(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    workspace = tmp_path / "workspace"
    counter = tmp_path / "counter.txt"
    bump = {
        "name": "exec",
        "arguments": {"argv": [sys.executable, "-c", f"open({str(counter)!r}, 'a').write('ran\\n')"]},
    }
    write = {"name": "write_file", "arguments": {"path": "second.txt", "content": "two"}}
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url, workspace)
        with _serve(env) as served:  # exec runs without asking; write_file asks
            api = Api(served)
            try:
                await api.ok("settings.update", {"tool_policies": {"exec": "always"}})
            finally:
                await api.aclose()
        steps: list[dict[str, Any]] = [{"tool_calls": [bump, write]}, {"text": "Both done."}]
        chat_id = await _start_turn(env, steps, llm, ran=1)
        assert counter.read_text() == "ran\n"

        with _serve(env) as served:
            api = Api(served)
            try:
                item = await api.pending_item()
                assert item["tool"] == "write_file"
                async with connect(
                    f"ws://127.0.0.1:{served.port}/api/events", additional_headers=served.bearer, proxy=None
                ) as ws:
                    await api.ok("inbox.answer", {"id": item["id"], "decision": "once", "via": "api"})
                    events = await _events(ws, {"turn_done", "turn_failed"})
                detail = await api.ok("chats.get", {"chat_id": chat_id})
            finally:
                await api.aclose()

    assert events[-1]["type"] == "turn_done", events
    assert counter.read_text() == "ran\n"  # the exec call ran once, before the kill
    assert (workspace / "second.txt").read_text() == "two"
    requests = llm.model_requests()
    assert len(requests) == 2
    results = _tool_messages(requests[1].body)
    assert [r["tool_call_id"] for r in results] == ["call_0_0", "call_0_1"]
    assert all(not r["content"].startswith("Error") for r in results), results
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant", "tool", "tool", "assistant"]


async def test_deleting_the_chat_removes_the_restored_question_and_its_checkpoint(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    workspace = tmp_path / "workspace"
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url, workspace)
        write = {"name": "write_file", "arguments": {"path": "never.txt", "content": "x"}}
        chat_id = await _start_turn(env, [{"tool_calls": [write]}, {"text": "unused"}], llm)
        with _serve(env) as served:
            api = Api(served)
            try:
                item = await api.pending_item()
                await api.ok("chats.delete", {"chat_id": chat_id})
                items = await api.inbox()
                late = await api.call("inbox.answer", {"id": item["id"], "decision": "once"})
            finally:
                await api.aclose()
    assert items == []
    assert late["ok"] is False and late["error"]["code"] == "not_found", late
    with sqlite3.connect(tmp_path / "data" / "cashcode.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM turn_checkpoints").fetchone() == (0,)
    assert not (workspace / "never.txt").exists()
    assert len(llm.model_requests()) == 1


async def test_a_checkpoint_that_does_not_read_is_reported_and_its_answer_changes_nothing(
    tmp_path: Path,
) -> None:
    env = isolated_env(tmp_path)
    workspace = tmp_path / "workspace"
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url, workspace)
        write = {"name": "write_file", "arguments": {"path": "bad.txt", "content": "x"}}
        chat_id = await _start_turn(env, [{"tool_calls": [write]}, {"text": "unused"}], llm)
        with sqlite3.connect(tmp_path / "data" / "cashcode.sqlite3") as db:
            db.execute('UPDATE turn_checkpoints SET body = \'{"version": 1, "broken": true}\'')
        with _serve(env) as served:
            api = Api(served)
            try:
                item = await api.pending_item()
                refused = await api.call("inbox.answer", {"id": item["id"], "decision": "once"})
                still = await api.pending_item()
                detail = await api.ok("chats.get", {"chat_id": chat_id})
            finally:
                await api.aclose()
    assert "resume_unreadable" in item["warnings"]
    assert refused["ok"] is False and refused["error"]["key"] == "approval.resume_unreadable", refused
    assert still["id"] == item["id"] and still["status"] == "pending"
    assert detail["messages"] == []
    assert not (workspace / "bad.txt").exists()
    assert len(llm.model_requests()) == 1
    assert any("checkpoint of turn" in line for line in served.output)


async def test_a_quit_while_an_approval_waits_keeps_the_question_for_the_next_start(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    workspace = tmp_path / "workspace"
    with FakeLLMServer() as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url, workspace)
        llm.script(
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "q.txt", "content": "q"}}]},
            {"text": "Done after the quit."},
        )
        with _serve(env) as served:
            api = Api(served)
            try:
                chat_id = (await api.ok("chats.create"))["id"]
                await api.ok("chat.send", {"chat_id": chat_id, "text": "write q"})
                await api.pending_item()
            finally:
                await api.aclose()
            served.proc.send_signal(signal.SIGINT)  # a normal quit (Ctrl+C)
            assert served.proc.wait(timeout=STOP_TIMEOUT_S) == 0
        with _serve(env) as served:
            api = Api(served)
            try:
                item = await api.pending_item()
                assert (await api.ok("chats.get", {"chat_id": chat_id}))["messages"] == []
                async with connect(
                    f"ws://127.0.0.1:{served.port}/api/events", additional_headers=served.bearer, proxy=None
                ) as ws:
                    await api.ok("chat.approve", {"approval_id": item["id"], "decision": "once"})
                    events = await _events(ws, {"turn_done", "turn_failed"})
                detail = await api.ok("chats.get", {"chat_id": chat_id})
            finally:
                await api.aclose()
    assert events[-1]["type"] == "turn_done", events
    assert (workspace / "q.txt").read_text() == "q"
    assert len(llm.model_requests()) == 2
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant", "tool", "assistant"]


async def test_removing_the_task_removes_its_restored_question_and_checkpoint(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    workspace = tmp_path / "workspace"
    with FakeLLMServer() as llm:
        pid = await asyncio.to_thread(_seed, env, llm.openai_base_url, workspace)
        llm.script(
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "t.txt", "content": "t"}}]},
            {"text": "unused"},
        )
        draft = {
            "name": "nightly", "prompt": "write t", "schedule": {"kind": "every", "seconds": 3600},
            "provider_id": pid, "model": "fake-model", "approval_mode": "ask_writes",
        }  # fmt: skip
        with _serve(env) as served:
            api = Api(served)
            try:
                task_id = (await api.ok("tasks.add", {"draft": draft}))["task"]["id"]
                await api.ok("tasks.run", {"task_id": task_id})
                await api.pending_item()
                _kill_9(served)
            finally:
                await api.aclose()
        with _serve(env) as served:
            api = Api(served)
            try:
                item = await api.pending_item()
                await api.ok("tasks.remove", {"task_id": task_id})
                async with asyncio.timeout(WAIT_S):
                    while items := await api.inbox():  # removed in the background of the route
                        await api.ok("app.info")  # (a round trip, not a sleep)
                late = await api.call("inbox.answer", {"id": item["id"], "decision": "once"})
            finally:
                await api.aclose()
    assert item["task_id"] == task_id and item["origin"] == "task" and item["resumable"] is True
    assert items == []
    assert late["ok"] is False and late["error"]["code"] == "not_found", late
    with sqlite3.connect(tmp_path / "data" / "cashcode.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM turn_checkpoints").fetchone() == (0,)
    assert not (workspace / "t.txt").exists()
    assert len(llm.model_requests()) == 1
