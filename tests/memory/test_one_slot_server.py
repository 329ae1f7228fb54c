"""Issue 34 item 3: on a one-slot server that interrupts (llama.cpp), background consolidation
yields to the user's turns: eight turns typed in a row with consolidation at 1,000 characters,
no turn request is cut and the summary is made (app/llm/gate.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from app.memory.consolidator import SUMMARY_SYSTEM
from app.testing.fake_llm import FakeLLMServer, RecordedRequest
from tests.api.conftest import VALID_KEY, AppMaker, add_provider, ok, send
from tests.memory.helpers import memory_cap

WORDS = "lorem ipsum dolor sit amet " * 12  # ~320 characters: past 1,000 from the third turn on
# A slow local model, scaled down: the prompt is read for PREFILL_S before the first token, then
# ten chunks come DELAY_S apart. Once the chat is past the threshold, the user sends the next
# message as soon as the summary has been asked for (the typing pace of a few seconds
# against a CPU model); before that, GAP_S after each answer.
PREFILL_S, DELAY_S, GAP_S = 0.25, 0.05, 0.3


@pytest.fixture
def one_slot_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(
        valid_keys={VALID_KEY}, one_slot=True, default_prefill_s=PREFILL_S, default_delay_s=DELAY_S
    ) as server:
        yield server


def _is_summary(request: RecordedRequest) -> bool:
    return bool(request.body["messages"]) and request.body["messages"][0]["content"] == SUMMARY_SYSTEM


def _summaries(requests: list[RecordedRequest]) -> list[RecordedRequest]:
    return [r for r in requests if r.path == "/v1/chat/completions" and _is_summary(r)]


async def test_eight_turns_on_a_one_slot_server_are_never_interrupted_and_the_summary_is_made(
    make_app: AppMaker, one_slot_llm: FakeLLMServer
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, one_slot_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"consolidation_chars": 1000})
    chat = (await ok(app, "chats.create"))["id"]
    consolidator = memory_cap(app).services.consolidator
    for i in range(8):
        asked_before = len(_summaries(one_slot_llm.model_requests()))
        turn = await send(app, chat, f"U{i} {WORDS}", pid)
        end: Any = await events.turn_end(turn, timeout_s=20)
        assert end.type == "turn_done", end
        if i == 7:
            break

        def summary_asked(requests: list[RecordedRequest], before: int = asked_before) -> bool:
            # Read from the fake's thread: a set lookup and a list, no state is changed.
            return len(_summaries(requests)) > before or not consolidator.is_running(chat)

        # Past the threshold the user types the next message while the summary is being
        # answered (bounded wait for the summary request); before it, after a short pause.
        await one_slot_llm.wait_until_async(summary_asked, timeout=10)
        await asyncio.sleep(0 if consolidator.is_running(chat) else GAP_S)
    await memory_cap(app).wait_background()
    # A summary cancelled for the last turn is asked again once no turn runs (bounded wait).
    await one_slot_llm.wait_until_async(lambda reqs: any(r.completed for r in _summaries(reqs)), timeout=30)

    requests = one_slot_llm.model_requests()
    turns = [r for r in requests if not _is_summary(r)]
    cut = [(i, r.status, r.interrupted) for i, r in enumerate(turns) if r.interrupted or not r.completed]
    assert cut == []  # no turn request was interrupted (nor retried)
    assert len(turns) == 8
    summaries = [r for r in requests if _is_summary(r)]
    assert any(r.completed for r in summaries)
    assert memory_cap(app).services.summaries.list(chat)  # the summary was stored
    # The background call did meet the turns: it was cancelled for them (and run again).
    assert any(not r.completed for r in summaries)
