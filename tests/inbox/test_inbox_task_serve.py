"""Under `cashcode serve` (a real process): a scheduled "Ask" task's write_file waits in the
Inbox past the old approval limit, its next slots are skipped (noted) meanwhile, and
`cashcode inbox approve` from another process finishes the turn (issue 35 acceptance)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2

from app.testing.fake_llm import FakeLLMServer
from tests.inbox.serve_helpers import cli as _cli
from tests.inbox.serve_helpers import invoke as _invoke
from tests.inbox.serve_helpers import seed
from tests.inbox.serve_helpers import until as _until
from tests.server.process import isolated_env, serve_process

WRITE = {"tool_calls": [{"name": "write_file", "arguments": {"path": "note.txt", "content": "hi"}}]}
STILL_WAITING = "the previous run was still waiting for an answer"


def _seed(env: dict[str, str], base_url: str) -> None:
    seed(env, base_url)
    # The old limit, as the task tests drove it: an approval unanswered for 1 s failed the run.
    settings = Path(env["CASHCODE_CONFIG_DIR"]) / "settings.json"
    data = json.loads(settings.read_text())
    data.setdefault("sections", {})["tasks"] = {"approval_timeout_s": 1}
    settings.write_text(json.dumps(data))


async def test_a_scheduled_ask_task_waits_in_the_inbox_and_is_approved_from_the_cli(tmp_path: Path) -> None:
    env = isolated_env(
        tmp_path,
        {
            "CASHCODE_TEST_TASKS_MIN_INTERVAL_S": "1",
            "CASHCODE_TEST_TASKS_POLL_S": "0.5",
            "CASHCODE_DREAM": "off",
        },
    )
    workspace = Path(env["WORKSPACE_DIR"])
    with FakeLLMServer(default_text="Nothing to write.") as llm:
        await asyncio.to_thread(_seed, env, llm.openai_base_url)
        llm.script(WRITE, {"text": "Written after approval."})
        with serve_process(["--no-open", "--port", "0"], env) as served:
            headers = served.bearer
            async with httpx2.AsyncClient(base_url=served.base_url, trust_env=False, timeout=30) as client:
                draft = {
                    "name": "asker", "prompt": "write the note", "schedule": {"kind": "every", "seconds": 2},
                    "approval_mode": "ask_writes", "chat_mode": "new_chat",
                }  # fmt: skip
                added = await _invoke(client, headers, "tasks.add", {"draft": draft})
                assert added["ok"], added
                task = added["data"]["task"]
                assert task["wait_for_answers_s"] == 86_400  # the default: a day

                async def listed() -> list[dict[str, Any]]:
                    shown = await asyncio.to_thread(_cli, env, "inbox", "--json")
                    assert shown.returncode == 0, shown.stderr
                    items: list[dict[str, Any]] = json.loads(shown.stdout)
                    return items

                items = await _until(listed)
                assert len(items) == 1
                item = items[0]
                assert item["kind"] == "approval" and item["tool"] == "write_file"
                assert item["who"] == "asker" and item["origin"] == "task" and item["task_id"] == task["id"]
                assert "note.txt" in item["summary"]

                async def runs() -> list[dict[str, Any]]:
                    found = await _invoke(client, headers, "tasks.history", {"task_id": task["id"]})
                    history: list[dict[str, Any]] = found["data"]["runs"]
                    return history

                async def skipped_while_waiting() -> list[dict[str, Any]]:
                    history = await runs()
                    return history if any(r["error"] == STILL_WAITING for r in history) else []

                # A later slot came (2 s on) while the run waited: skipped with a note, no pile-up;
                # the run itself still waits, past the old 1 s limit.
                history = await _until(skipped_while_waiting)
                waiting = [r for r in history if r["status"] == "running"]
                assert len(waiting) == 1 and waiting[0]["waiting_approval"] is True
                assert all(r["status"] in ("running", "skipped") for r in history)
                assert not (workspace / "note.txt").exists()

                approved = await asyncio.to_thread(_cli, env, "inbox", "approve", item["id"])
                assert approved.returncode == 0, approved.stderr

                async def finished() -> dict[str, Any] | None:
                    return next(
                        (r for r in await runs() if r["id"] == waiting[0]["id"] and r["status"] != "running"),
                        None,
                    )

                run = await _until(finished)
                assert run["status"] == "ok" and run["answer"] == "Written after approval.", run
                assert (workspace / "note.txt").read_text() == "hi"
                writes = [
                    c for r in llm.model_requests() for m in r.body["messages"] if m["role"] == "assistant"
                    for c in m.get("tool_calls") or [] if c["function"]["name"] == "write_file"
                ]  # fmt: skip
                assert len({c["id"] for c in writes}) == 1  # the tool ran once, for one call
                chat = (await _invoke(client, headers, "chats.get", {"chat_id": run["chat_id"]}))["data"]
                messages = chat["messages"]
                assert len({m["turn_id"] for m in messages}) == 1  # exactly one whole turn
                assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
                assert messages[-1]["content"] == "Written after approval."

                # Every other view sees it answered, and by which surface; a late answer is refused.
                late = await _invoke(
                    client, headers, "chat.approve", {"approval_id": item["id"], "decision": "deny"}
                )
                assert late["ok"] is False and late["error"]["code"] == "conflict"
                assert late["error"]["params"]["by"] == "cli"
                rest = await client.post(
                    f"/api/inbox/{item['id']}/answer", json={"decision": "once"}, headers=headers
                )
                assert rest.status_code == 409
                shown = (await client.get("/api/inbox?include_answered=true", headers=headers)).json()
                answered = [i for i in shown["data"]["items"] if i["id"] == item["id"]]
                assert [(i["status"], i["answer"], i["answered_by"]) for i in answered] == [
                    ("answered", "once", "cli")
                ]
                await _invoke(client, headers, "tasks.set_enabled", {"task_id": task["id"], "enabled": False})
    assert not any("Traceback" in line for line in served.output), "".join(served.output)
