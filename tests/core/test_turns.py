from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from app.contracts.events import ApprovalRequired, ApprovalResolved, TurnCancelled
from app.contracts.provider import TextDelta
from app.contracts.turn import TurnSpec
from app.core.turn import run_turn
from app.core.turns import ChatBusy, NothingToRetry, TurnManager
from tests.core.helpers import EchoTool, ScriptedProvider, WriteTool, calls, make_rig, text


def _spec(chat_id: str, user_text: str = "hi") -> TurnSpec:
    return TurnSpec(
        chat_id=chat_id, turn_id=str(uuid.uuid4()), user_text=user_text, provider_id="p1", model="m1"
    )


async def test_stop_during_streaming_closes_the_stream_and_keeps_the_partial_answer(
    tmp_path: Path,
) -> None:
    never = asyncio.Event()
    rig = make_rig(tmp_path, ScriptedProvider(never))
    manager = TurnManager(rig.emit)
    chat = rig.chats.create()
    manager.start(_spec(chat.id), lambda s: run_turn(s, rig.deps()))
    await rig.until(lambda: "delta" in rig.types())
    assert await manager.cancel(chat.id)
    assert rig.types()[-1] == "turn_cancelled"
    assert rig.provider.closed_streams == 1
    assert not manager.is_running(chat.id)
    kept = rig.chats.history(chat.id)
    assert [(m.role, m.content, m.stopped) for m in kept] == [
        ("user", "hi", False),
        ("assistant", "partial", True),
    ]
    with pytest.raises(NothingToRetry):  # it is stored: retrying would send the message twice
        manager.retry_spec(chat.id)


async def test_the_next_turn_after_a_stop_sees_the_stopped_answer(tmp_path: Path) -> None:
    rig = make_rig(tmp_path, ScriptedProvider(asyncio.Event(), text("ok")))
    manager = TurnManager(rig.emit)
    chat = rig.chats.create()
    manager.start(_spec(chat.id, "first"), lambda s: run_turn(s, rig.deps()))
    await rig.until(lambda: "delta" in rig.types())
    await manager.cancel(chat.id)
    manager.start(_spec(chat.id, "second"), lambda s: run_turn(s, rig.deps()))
    await manager.wait(chat.id)
    seen = [(m.role, m.content) for m in rig.provider.requests[-1].messages if m.role != "system"]
    assert seen == [("user", "first"), ("assistant", "partial"), ("user", "second")]
    assert [m.stopped for m in rig.chats.history(chat.id)] == [False, True, False, False]


async def test_a_stop_while_a_tool_runs_keeps_the_finished_steps_without_the_open_call(
    tmp_path: Path,
) -> None:
    rig = make_rig(
        tmp_path,
        ScriptedProvider(
            calls(("echo", '{"text": "a"}')), [TextDelta("looking "), *calls(("write", '{"path": "x"}'))]
        ),
        EchoTool(),
        WriteTool(),
    )
    manager = TurnManager(rig.emit)
    chat = rig.chats.create()
    manager.start(_spec(chat.id), lambda s: run_turn(s, rig.deps()))
    await rig.until(lambda: "approval_required" in rig.types())
    await manager.cancel(chat.id)
    kept = rig.chats.history(chat.id)
    assert [m.role for m in kept] == ["user", "assistant", "tool", "assistant"]
    assert kept[-1].content == "looking " and kept[-1].tool_calls == () and kept[-1].stopped


async def test_stop_while_waiting_for_approval_resolves_it_as_cancelled(tmp_path: Path) -> None:
    rig = make_rig(tmp_path, ScriptedProvider(calls(("write", '{"path": "x"}'))), WriteTool())
    manager = TurnManager(rig.emit)
    chat = rig.chats.create()
    manager.start(_spec(chat.id), lambda s: run_turn(s, rig.deps()))
    await rig.until(lambda: "approval_required" in rig.types())
    await manager.cancel(chat.id)
    required = next(e for e in rig.events if isinstance(e, ApprovalRequired))
    resolved = next(e for e in rig.events if isinstance(e, ApprovalResolved))
    assert resolved.approval_id == required.approval_id and resolved.decision == "cancelled"
    assert isinstance(rig.events[-1], TurnCancelled)
    assert rig.gate is not None and rig.gate.pending_ids() == []
    assert rig.chats.history(chat.id) == []


async def test_a_second_turn_in_a_busy_chat_is_refused_but_other_chats_run(tmp_path: Path) -> None:
    gate_a, gate_b = asyncio.Event(), asyncio.Event()
    rig = make_rig(tmp_path, ScriptedProvider(gate_a, gate_b))
    manager = TurnManager(rig.emit)
    a, b = rig.chats.create(), rig.chats.create()
    manager.start(_spec(a.id), lambda s: run_turn(s, rig.deps()))
    with pytest.raises(ChatBusy):
        manager.start(_spec(a.id), lambda s: run_turn(s, rig.deps()))
    manager.start(_spec(b.id), lambda s: run_turn(s, rig.deps()))
    await rig.until(lambda: rig.types().count("delta") == 2)
    assert sorted(manager.running_chats()) == sorted([a.id, b.id])
    gate_a.set()
    gate_b.set()
    await manager.wait(a.id)
    await manager.wait(b.id)
    assert rig.types().count("turn_done") == 2


async def test_retry_offers_the_last_cancelled_turn_and_forgets_it_after_success(tmp_path: Path) -> None:
    # Stopped before any answer (at the approval of its first call): nothing stored, retryable.
    rig = make_rig(tmp_path, ScriptedProvider(calls(("write", '{"path": "x"}')), text("ok")), WriteTool())
    manager = TurnManager(rig.emit)
    chat = rig.chats.create()
    with pytest.raises(NothingToRetry):
        manager.retry_spec(chat.id)
    first = _spec(chat.id, "do it")
    manager.start(first, lambda s: run_turn(s, rig.deps()))
    await rig.until(lambda: "approval_required" in rig.types())
    await manager.cancel(chat.id)
    assert rig.chats.history(chat.id) == []
    assert manager.retry_spec(chat.id) == first
    manager.start(_spec(chat.id, "do it"), lambda s: run_turn(s, rig.deps()))
    await manager.wait(chat.id)
    with pytest.raises(NothingToRetry):
        manager.retry_spec(chat.id)
    assert [m.content for m in rig.chats.history(chat.id)] == ["do it", "ok"]


async def test_a_turn_cancelled_before_it_started_still_reports_turn_cancelled(tmp_path: Path) -> None:
    rig = make_rig(tmp_path, ScriptedProvider(text("never")))
    manager = TurnManager(rig.emit)
    chat = rig.chats.create()
    manager.start(_spec(chat.id), lambda s: run_turn(s, rig.deps()))
    await manager.cancel(chat.id)
    assert not manager.is_running(chat.id)
    assert rig.types() == ["turn_cancelled"]
