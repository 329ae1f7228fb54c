from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from app.contracts.events import Delta, ToolResultEvent, TurnDone, TurnFailed
from app.contracts.provider import ProviderError
from app.contracts.turn import TurnSpec
from app.core.loop import iteration_limit_note
from app.core.tool_calls import DENIED_BY_USER, truncate_for_model
from app.core.turn import run_turn
from tests.core.helpers import EchoTool, ScriptedProvider, WriteTool, calls, make_rig, text, tool_messages


def _spec(chat_id: str, user_text: str = "hi") -> TurnSpec:
    return TurnSpec(
        chat_id=chat_id, turn_id=str(uuid.uuid4()), user_text=user_text, provider_id="p1", model="m1"
    )


async def test_a_text_turn_streams_deltas_reports_usage_and_stores_user_and_answer(tmp_path: Path) -> None:
    rig = make_rig(tmp_path, ScriptedProvider(text("Hel", "lo")))
    chat = rig.chats.create()
    outcome = await run_turn(_spec(chat.id), rig.deps())
    assert outcome.status == "done"
    assert rig.types() == ["turn_started", "delta", "delta", "usage", "turn_done"]
    assert "".join(e.text for e in rig.events if isinstance(e, Delta)) == "Hello"
    stored = rig.chats.history(chat.id)
    assert [(m.role, m.content) for m in stored] == [("user", "hi"), ("assistant", "Hello")]
    assert rig.usage[0].input_tokens == 10
    system = rig.provider.requests[0].messages[0]
    assert system.role == "system" and system.content == "You are a test."


async def test_independent_tool_calls_run_in_parallel_and_results_keep_call_order(tmp_path: Path) -> None:
    barrier = asyncio.Barrier(2)  # deadlocks (test timeout) unless both calls run together
    provider = ScriptedProvider(calls(("echo", '{"text": "one"}'), ("echo", '{"text": "two"}')), text("done"))
    rig = make_rig(tmp_path, provider, EchoTool(barrier))
    chat = rig.chats.create()
    await asyncio.wait_for(run_turn(_spec(chat.id), rig.deps()), 5)
    results = tool_messages(provider.requests[1])
    assert [(m.tool_call_id, m.content) for m in results] == [("call_0", "one"), ("call_1", "two")]
    roles = [m.role for m in rig.chats.history(chat.id)]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"]


async def test_oversized_tool_output_is_truncated_for_the_model_but_whole_for_the_ui(tmp_path: Path) -> None:
    big = "x" * 500 + "[continue with offset=9]"
    provider = ScriptedProvider(calls(("echo", "{}")), text("ok"))
    rig = make_rig(tmp_path, provider, EchoTool(output=big), max_tool_output_chars=100)
    chat = rig.chats.create()
    await run_turn(_spec(chat.id), rig.deps())
    seen = tool_messages(provider.requests[1])[0].content
    # The head and the tail (where tools put their markers) survive; the cut says what it left out.
    assert seen.startswith("x" * 75) and seen.endswith("[continue with offset=9]")
    assert "424 characters of the tool result left out here (524 in all" in seen
    ui = next(e for e in rig.events if isinstance(e, ToolResultEvent))
    assert ui.output == big and ui.truncated


def test_truncation_leaves_short_text_alone() -> None:
    assert truncate_for_model("abc", 10) == ("abc", False)


async def test_bad_arguments_and_unknown_tools_become_error_results_and_the_turn_continues(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider(calls(("echo", "not json"), ("nope", "{}")), text("fine"))
    rig = make_rig(tmp_path, provider, EchoTool())
    chat = rig.chats.create()
    outcome = await run_turn(_spec(chat.id), rig.deps())
    assert outcome.status == "done"
    bad_json, unknown = tool_messages(provider.requests[1])
    assert "not valid JSON" in bad_json.content
    assert "unknown tool" in unknown.content


async def test_a_denied_call_tells_the_model_and_the_turn_reaches_an_answer(tmp_path: Path) -> None:
    tool = WriteTool()
    provider = ScriptedProvider(calls(("write", '{"path": "a.txt"}')), text("ok, not writing"))
    rig = make_rig(tmp_path, provider, tool)
    chat = rig.chats.create()
    task = asyncio.create_task(run_turn(_spec(chat.id), rig.deps()))
    approval = await rig.next_approval()
    assert rig.gate is not None and rig.gate.answer(approval.approval_id, "deny")
    outcome = await asyncio.wait_for(task, 5)
    assert outcome.status == "done" and outcome.text == "ok, not writing"
    assert tool.runs == []
    assert tool_messages(provider.requests[1])[0].content == DENIED_BY_USER


async def test_always_allow_records_the_grant_and_runs(tmp_path: Path) -> None:
    tool = WriteTool()
    provider = ScriptedProvider(calls(("write", '{"path": "a.txt"}')), text("done"))
    rig = make_rig(tmp_path, provider, tool)
    chat = rig.chats.create()
    task = asyncio.create_task(run_turn(_spec(chat.id), rig.deps()))
    approval = await rig.next_approval()
    assert approval.can_always and approval.detail == "write a.txt"
    assert rig.gate is not None and rig.gate.answer(approval.approval_id, "always")
    await asyncio.wait_for(task, 5)
    assert tool.runs == ["a.txt"]
    assert [k.key for k in rig.ledger.keys] == [("write", "a.txt")]
    assert rig.gate.answer(approval.approval_id, "once") is False  # already resolved


async def test_hitting_the_iteration_limit_ends_with_a_note_and_keeps_the_tool_chain(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("echo", "{}")), calls(("echo", "{}")))
    rig = make_rig(tmp_path, provider, EchoTool(), max_iterations=2)
    chat = rig.chats.create()
    outcome = await run_turn(_spec(chat.id), rig.deps())
    assert outcome.status == "done" and outcome.text == iteration_limit_note(2)
    roles = [m.role for m in rig.chats.history(chat.id)]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


@pytest.mark.parametrize("fail_on", [0, 1])
async def test_a_provider_error_fails_the_turn_and_stores_nothing(tmp_path: Path, fail_on: int) -> None:
    error = ProviderError(code="rate_limit", message="Rate limited; try again in 2 s.", retry_after_s=2)
    steps = [calls(("echo", "{}")), error] if fail_on else [error]
    rig = make_rig(tmp_path, ScriptedProvider(*steps), EchoTool())
    chat = rig.chats.create()
    outcome = await run_turn(_spec(chat.id), rig.deps())
    assert outcome.status == "failed"
    failed = rig.events[-1]
    assert isinstance(failed, TurnFailed) and failed.error.code == "rate_limit"
    assert failed.error.retry_after_s == 2
    assert rig.chats.history(chat.id) == []
    assert not any(isinstance(e, TurnDone) for e in rig.events)
