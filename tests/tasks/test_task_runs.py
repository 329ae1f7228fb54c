"""Task runs are full turns through the real app and the scripted LLM: the task's approval
mode holds whatever the app's mode is, "Ask" waits for the approval (and times out), a missing
provider fails with its reason, and the chat mode decides where turns go."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalRequired
from app.tasks.events import TaskRunFinished
from tests.api.conftest import AppMaker, add_provider, err, ok
from tests.tasks.conftest import LOWERED, draft

WRITE = {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "hi"}}]}


async def _task(app: Any, pid: str, **kw: Any) -> dict[str, Any]:
    saved = await ok(app, "tasks.add", {"draft": draft(provider_id=pid, model="fake-model", **kw)})
    task: dict[str, Any] = saved["task"]
    return task


async def test_a_read_only_task_is_refused_write_file_even_when_the_app_is_autonomous(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app(env=LOWERED)
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    task = await _task(app, pid, approval_mode="read_only")  # new tasks default to sandboxed (issue 36)
    assert task["approval_mode"] == "read_only"
    fake_llm.script(WRITE, {"text": "I could not write it."})
    run = await ok(app, "tasks.run", {"task_id": task["id"], "wait": True})
    assert run["status"] == "ok" and run["answer"] == "I could not write it."
    assert run["refused_tools"] == ["write_file"]
    assert "refused by the task's approval mode: write_file" in run["error"]
    assert not (workspace / "out.txt").exists()
    tool_msg = next(m for m in fake_llm.model_requests()[1].body["messages"] if m["role"] == "tool")
    assert "read-only mode" in tool_msg["content"]
    history = await ok(app, "tasks.history", {"task_id": task["id"]})
    assert [r["id"] for r in history["runs"]] == [run["id"]] and history["runs"][0]["trace_id"]
    finished = events.of(TaskRunFinished)
    assert [(e.run_id, e.status, e.open_chat_id) for e in finished] == [(run["id"], "ok", run["chat_id"])]
    # The user's own next message in that chat has the app's mode again (autonomous: it writes).
    fake_llm.script(WRITE, {"text": "Written."})
    ref = await ok(app, "chat.send", {"chat_id": run["chat_id"], "text": "write it now",
                                      "model": {"provider_id": pid, "model": "fake-model"}})  # fmt: skip
    assert (await events.turn_end(ref["turn_id"])).type == "turn_done"
    assert (workspace / "out.txt").read_text() == "hi"


async def test_an_ask_task_waits_for_the_approval_and_completes_after_it(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app(env=LOWERED)
    pid = await add_provider(app, fake_llm, "chat_completions")
    task = await _task(app, pid, approval_mode="ask_writes")
    fake_llm.script(WRITE, {"text": "Wrote it."})
    started = await ok(app, "tasks.run", {"task_id": task["id"]})
    assert started["status"] == "running"
    await events.until(lambda: bool(events.of(ApprovalRequired)))
    approval = events.of(ApprovalRequired)[0]
    waiting = (await ok(app, "tasks.history", {"task_id": task["id"]}))["runs"][0]
    assert waiting["id"] == started["id"] and waiting["status"] == "running"
    assert waiting["waiting_approval"] is True
    assert approval.chat_id == waiting["chat_id"] and approval.tool == "write_file"
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    await events.until(lambda: bool(events.of(TaskRunFinished)))
    done = (await ok(app, "tasks.history", {"task_id": task["id"]}))["runs"][0]
    assert done["status"] == "ok" and done["answer"] == "Wrote it." and not done["waiting_approval"]
    assert (workspace / "out.txt").read_text() == "hi"


async def test_an_unanswered_approval_expires_after_the_tasks_wait_for_answers(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app(env=LOWERED)
    pid = await add_provider(app, fake_llm, "chat_completions")
    task = await _task(app, pid, approval_mode="ask_writes", wait_for_answers_s=1)
    assert task["wait_for_answers_s"] == 1
    fake_llm.script(WRITE, {"text": "never"})
    run = await ok(app, "tasks.run", {"task_id": task["id"], "wait": True})
    assert run["status"] == "failed"
    assert run["error"] == "waiting for approval: no answer within 1 s"
    assert not (workspace / "out.txt").exists()
    chat = await ok(app, "chats.get", {"chat_id": run["chat_id"]})
    assert chat["messages"] == []  # no half turn is kept
    # The Inbox shows the item as expired ("timeout"), not as answered by someone.
    items = (await ok(app, "inbox.list", {"include_answered": True}))["items"]
    assert [(i["status"], i["answered_by"], i["who"], i["origin"], i["task_id"]) for i in items] == [
        ("expired", "timeout", "brief", "task", task["id"])
    ]


async def test_wait_for_answers_0_fails_the_run_at_the_first_question(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, _ = await make_app(env=LOWERED)
    pid = await add_provider(app, fake_llm, "chat_completions")
    task = await _task(app, pid, approval_mode="ask_writes", wait_for_answers_s=0)
    fake_llm.script(WRITE, {"text": "never"})
    run = await ok(app, "tasks.run", {"task_id": task["id"], "wait": True})
    assert run["status"] == "failed" and run["error"] == "waiting for approval: no answer within 0 s"
    assert not (workspace / "out.txt").exists()
    assert len(fake_llm.model_requests()) == 1  # the model is not asked again after the expiry


async def test_a_task_whose_provider_is_gone_fails_with_the_reason(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app(env=LOWERED)
    pid = await add_provider(app, fake_llm, "chat_completions")
    task = await _task(app, pid)
    await ok(app, "providers.delete", {"provider_id": pid})
    run = await ok(app, "tasks.run", {"task_id": task["id"], "wait": True})
    assert run["status"] == "failed"
    assert f"the task's provider {pid!r} no longer exists" in run["error"]
    listed = await ok(app, "tasks.list")
    assert listed["tasks"][0]["last_status"] == "failed"


async def test_one_chat_per_task_or_a_new_chat_per_run(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app(env=LOWERED)
    pid = await add_provider(app, fake_llm, "chat_completions")
    same = await _task(app, pid, name="same")
    fresh = await _task(app, pid, name="fresh", chat_mode="new_chat")
    fake_llm.script({"text": "a"}, {"text": "b"}, {"text": "c"}, {"text": "d"})
    runs = [
        await ok(app, "tasks.run", {"task_id": t["id"], "wait": True}) for t in (same, same, fresh, fresh)
    ]
    assert runs[0]["chat_id"] == runs[1]["chat_id"]
    assert runs[2]["chat_id"] != runs[3]["chat_id"]
    detail = await ok(app, "chats.get", {"chat_id": runs[0]["chat_id"]})
    assert [m["content"] for m in detail["messages"]] == ["Say hi", "a", "Say hi", "b"]


async def test_bad_tasks_are_refused_and_nothing_is_stored(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app()  # the real minimum: one minute
    short = await err(app, "tasks.add", {"draft": draft(schedule={"kind": "every", "seconds": 30})})
    assert short["code"] == "invalid" and "at least 1m" in short["message"]
    cron = await err(app, "tasks.add", {"draft": draft(schedule={"kind": "cron", "expr": "61 * * * *"})})
    assert "cron" in cron["message"]
    ghost = await err(app, "tasks.add", {"draft": draft(provider_id="nope")})
    assert "no saved provider" in ghost["message"]
    nowhere = await err(app, "tasks.add", {"draft": draft(workspace="/no/such/folder")})
    assert "not an existing folder" in nowhere["message"]
    assert (await ok(app, "tasks.list"))["tasks"] == []
    await ok(app, "tasks.add", {"draft": draft()})
    twice = await err(app, "tasks.add", {"draft": draft()})
    assert "already exists" in twice["message"]
    auto = await ok(app, "tasks.add", {"draft": draft("auto", approval_mode="autonomous")})
    assert auto["warnings"] and "without asking" in auto["warnings"][0]
    preview = await ok(app, "tasks.preview", {"schedule": {"kind": "daily", "hour": 7, "minute": 30},
                                              "time_zone": "Europe/Berlin"})  # fmt: skip
    assert len(preview["next_runs"]) == 5 and preview["schedule_text"] == "daily 07:30"


async def test_edit_keeps_or_restarts_the_schedule_and_disable_clears_the_next_run(
    make_app: AppMaker,
) -> None:
    app, _ = await make_app(env=LOWERED)
    saved = (await ok(app, "tasks.add", {"draft": draft("edit me")}))["task"]
    same = await ok(app, "tasks.update", {"task_id": saved["id"], "draft": draft("renamed", prompt="New")})
    assert same["task"]["name"] == "renamed" and same["task"]["prompt"] == "New"
    assert same["task"]["next_run"] == saved["next_run"]  # same schedule: same slots
    daily = {"kind": "daily", "hour": 6, "minute": 15}
    moved = await ok(app, "tasks.update", {"task_id": saved["id"], "draft": draft("renamed", schedule=daily),
                                           "time_zone": "Asia/Shanghai"})  # fmt: skip
    got = await ok(app, "tasks.get", {"task_id": saved["id"]})
    assert (
        got == moved["task"] and got["schedule_text"] == "daily 06:15" and got["time_zone"] == "Asia/Shanghai"
    )
    assert got["next_run"].endswith("22:15:00Z")  # 06:15 in Shanghai is 22:15 UTC
    off = await ok(app, "tasks.set_enabled", {"task_id": saved["id"], "enabled": False})
    assert off["enabled"] is False and off["next_run"] is None
    bad = await err(
        app,
        "tasks.update",
        {"task_id": saved["id"], "draft": draft("renamed", schedule={"kind": "cron", "expr": "x"})},
    )
    assert bad["code"] == "invalid"
    assert (await ok(app, "tasks.get", {"task_id": saved["id"]}))[
        "schedule_text"
    ] == "daily 06:15"  # unchanged
    gone = await err(app, "tasks.get", {"task_id": "not-an-id"})
    assert gone["code"] == "invalid"
    await ok(app, "tasks.remove", {"task_id": saved["id"]})
    assert (await err(app, "tasks.get", {"task_id": saved["id"]}))["code"] == "not_found"


async def test_a_read_only_task_refuses_an_mcp_tool_as_a_kind_not_as_a_change(
    make_app: AppMaker, fake_llm: Any
) -> None:
    # Issue 40 item 17: the refusal said the server's read-only tool "would change something".
    from tests.mcp.helpers import add_rough

    app, _ = await make_app(env=LOWERED)
    pid = await add_provider(app, fake_llm, "chat_completions")
    await add_rough(app)
    task = await _task(app, pid, approval_mode="read_only")  # new tasks default to sandboxed
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "rough"}}]},
        {"tool_calls": [{"name": "mcp_rough_look_up", "arguments": {}}]},
        {"text": "Not allowed."},
    )
    run = await ok(app, "tasks.run", {"task_id": task["id"], "wait": True})
    assert run["status"] == "ok" and run["refused_tools"] == ["mcp_rough_look_up"]
    told = [m for m in fake_llm.model_requests()[2].body["messages"] if m["role"] == "tool"][-1]["content"]
    assert "allows no MCP tools" in told and "would change something" not in told
    assert "marks it read-only" in told
