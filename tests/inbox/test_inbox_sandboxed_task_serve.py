"""Under `cashcode serve` (a real process): a scheduled task in the Sandboxed mode runs its `exec`
steps with no Inbox item; a step that needs the network raises exactly one, the run waits for it,
and `cashcode inbox deny` (or `approve`: once, without the sandbox) from another process lets it
finish: denied, with a refusal the model sees (issue 36 acceptance, where the sandbox meets the
Inbox of issue 35)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.sandbox.probe import landlock_abi
from app.testing.fake_llm import FakeLLMServer
from tests.inbox.serve_helpers import cli as _cli
from tests.inbox.serve_helpers import inbox as _inbox
from tests.inbox.serve_helpers import invoke as _invoke
from tests.inbox.serve_helpers import seed as _seed
from tests.inbox.serve_helpers import until as _until
from tests.sandbox.listener import tcp_listener
from tests.server.process import isolated_env, serve_process

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or landlock_abi({})[0] < 4, reason="needs Landlock with TCP rules"
)



def _exec(*argv: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "exec", "arguments": {"argv": list(argv)}}]}


def _env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(
        tmp_path,
        {
            "CASHCODE_TEST_TASKS_MIN_INTERVAL_S": "1",
            "CASHCODE_TEST_TASKS_POLL_S": "0.5",
            "CASHCODE_DREAM": "off",
            # The system's python3: a toolchain under $HOME (a pyenv shim) is outside what the
            # workspace policy reads, so it would ask for that instead (as tests/tasks does).
            "PATH": "/usr/bin:/bin",
        },
    )


async def _run_scheduled(
    client: httpx2.AsyncClient, headers: dict[str, str], name: str
) -> tuple[dict[str, Any], Any]:
    """Add a Sandboxed task due every 2 s (the task clock's poll starts it, no manual run)."""
    draft = {
        "name": name, "prompt": "do the step", "schedule": {"kind": "every", "seconds": 2},
        "approval_mode": "sandboxed", "chat_mode": "new_chat",
    }  # fmt: skip
    added = await _invoke(client, headers, "tasks.add", {"draft": draft})
    assert added["ok"], added
    task: dict[str, Any] = added["data"]["task"]
    assert task["approval_mode"] == "sandboxed"

    async def runs() -> list[dict[str, Any]]:
        found = await _invoke(client, headers, "tasks.history", {"task_id": task["id"]})
        history: list[dict[str, Any]] = found["data"]["runs"]
        return history

    return task, runs


async def test_a_sandboxed_scheduled_task_runs_exec_with_no_inbox_item(tmp_path: Path) -> None:
    env = _env(tmp_path)
    workspace = Path(env["WORKSPACE_DIR"])
    with FakeLLMServer(default_text="Nothing more to do.") as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url)
        llm.script(_exec("python3", "-c", "open('out.txt','w').write('x')"), {"text": "Wrote it."})
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client:
                task, runs = await _run_scheduled(client, headers, "builder")

                async def first_finished() -> dict[str, Any] | None:
                    return next((r for r in await runs() if r["status"] not in ("running", "skipped")), None)

                run = await _until(first_finished)
                await _invoke(client, headers, "tasks.set_enabled", {"task_id": task["id"], "enabled": False})
                assert run["status"] == "ok" and run["answer"] == "Wrote it.", run
                assert (workspace / "out.txt").read_text() == "x"
                # Never asked: nothing waits and nothing was ever raised (answered items included).
                assert await asyncio.to_thread(_inbox, env, "--all") == []
                shown = (await client.get("/api/inbox?include_answered=true", headers=headers)).json()
                assert shown["data"]["items"] == []
                tool_msg = next(
                    m for r in llm.model_requests() for m in r.body["messages"] if m["role"] == "tool"
                )
                assert "Sandbox: sandboxed" in tool_msg["content"]
    assert not any("Traceback" in line for line in served.output), "".join(served.output)


@pytest.mark.parametrize(
    ("command", "answer", "reply", "sent", "seen_note"),
    [
        ("deny", "deny", "Could not upload.", [], "The user did not allow running it without the sandbox."),
        ("approve", "once", "Uploaded.", [b"secret"], "Sandbox: not sandboxed"),
    ],
)
async def test_a_sandboxed_scheduled_task_that_needs_the_network_waits_in_the_inbox_for_the_cli(
    tmp_path: Path, command: str, answer: str, reply: str, sent: list[bytes], seen_note: str
) -> None:
    env = _env(tmp_path)
    with tcp_listener() as (port, received), FakeLLMServer(default_text="Nothing more to do.") as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url)
        upload = f"import socket; socket.create_connection(('127.0.0.1', {port})).sendall(b'secret')"
        llm.script(_exec("python3", "-c", upload), {"text": reply})
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client:
                task, runs = await _run_scheduled(client, headers, "uploader")

                async def listed() -> list[dict[str, Any]]:
                    return await asyncio.to_thread(_inbox, env)

                items = await _until(listed)
                assert len(items) == 1, items
                item = items[0]
                assert item["kind"] == "approval" and item["tool"] == "exec"
                assert (
                    item["origin"] == "task" and item["task_id"] == task["id"] and item["who"] == "uploader"
                )
                assert item["summary"].startswith("Run without the sandbox (network access)"), item

                async def waiting_run() -> list[dict[str, Any]]:
                    return [r for r in await runs() if r["status"] == "running" and r["waiting_approval"]]

                waiting = await _until(waiting_run)
                assert len(waiting) == 1
                assert all(r["status"] in ("running", "skipped") for r in await runs())
                assert received == []  # the sandbox held while it waited

                answered = await asyncio.to_thread(_cli, env, "inbox", command, item["id"])
                assert answered.returncode == 0, answered.stderr

                async def finished() -> dict[str, Any] | None:
                    return next(
                        (r for r in await runs() if r["id"] == waiting[0]["id"] and r["status"] != "running"),
                        None,
                    )

                run = await _until(finished)
                await _invoke(client, headers, "tasks.set_enabled", {"task_id": task["id"], "enabled": False})
                assert run["status"] == "ok" and run["answer"] == reply, run
                # Denied: it never ran unconfined. Approved once: it ran once, without the sandbox.
                assert received == sent
                # Exactly one item was ever raised for the run, answered from the CLI.
                everything = await asyncio.to_thread(_inbox, env, "--all")
                assert [(i["id"], i["status"], i["answered_by"]) for i in everything] == [
                    (item["id"], "answered", "cli")
                ]
                shown = (await client.get("/api/inbox?include_answered=true", headers=headers)).json()
                assert [(i["id"], i["answer"]) for i in shown["data"]["items"]] == [(item["id"], answer)]
                # The model saw what happened as the tool's result: a clear refusal, or the run.
                tool_msgs = [
                    m for r in llm.model_requests() for m in r.body["messages"] if m["role"] == "tool"
                ]
                assert tool_msgs, "the model never saw the tool's result"
                assert len({m["tool_call_id"] for m in tool_msgs}) == 1  # one call, one result
                seen = tool_msgs[-1]["content"]
                assert seen_note in seen, seen
    assert not any("Traceback" in line for line in served.output), "".join(served.output)
