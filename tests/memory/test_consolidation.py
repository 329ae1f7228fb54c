"""Consolidation (SPEC S5.2) through the scripted LLM over real HTTP."""

from __future__ import annotations

from typing import Any

from app.contracts.messages import Message, ToolCall
from app.memory.consolidator import plan_consolidation
from app.memory.summaries import SUMMARY_PREFIX
from app.store.chats import StoredMessage
from tests.api.conftest import AppMaker, add_provider, fast_retry_factory, ok, send
from tests.memory.helpers import memory_cap

WORDS = "lorem ipsum dolor sit amet " * 15  # ~400 characters


async def _turn(app: Any, events: Any, chat_id: str, pid: str, text: str) -> None:
    turn = await send(app, chat_id, text, pid)
    assert (await events.turn_end(turn)).type == "turn_done"


def _summaries(app: Any, chat: str) -> list[tuple[str, int]]:
    return [(s.content, s.keep_from_cursor) for s in memory_cap(app).services.summaries.list(chat)]


def _contents(request: Any) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in request.body["messages"]]


async def test_past_the_threshold_a_chat_is_consolidated_and_a_restart_loads_summary_plus_tail(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"consolidation_chars": 1000})
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "A1 " + WORDS}, {"text": "A2 " + WORDS}, {"text": "SUMMARY-ONE"})
    await _turn(app, events, chat, pid, "U1 " + WORDS)
    await memory_cap(app).wait_background()
    assert _summaries(app, chat) == []  # 800 chars: under the threshold
    await _turn(app, events, chat, pid, "U2 " + WORDS)
    await memory_cap(app).wait_background()
    assert _summaries(app, chat) == [("SUMMARY-ONE", 3)]
    shown = await ok(app, "memory.summaries", {"chat_id": chat})
    assert shown["latest"]["content"] == "SUMMARY-ONE" and shown["latest"]["keep_from_cursor"] == 3
    assert shown["count"] == 1 and shown["running"] is False
    summary_request = fake_llm.model_requests()[-1]
    asked = summary_request.body["messages"][1]["content"]
    assert "U1 " in asked and "A1 " in asked and "U2 " not in asked  # the newest ~50% stay verbatim
    # The full history is still stored and shown.
    assert len((await ok(app, "chats.get", {"chat_id": chat}))["messages"]) == 4

    # A new app on the same data folder (a restart) sends summary + exactly cursor >= 3.
    app2, events2 = await make_app()
    fake_llm.script({"text": "A3"})
    await _turn(app2, events2, chat, pid, "U3")
    sent = _contents(fake_llm.model_requests()[-1])
    assert sent[1] == ("system", SUMMARY_PREFIX + "SUMMARY-ONE")
    assert [c[:3] for _, c in sent[2:]] == ["U2 ", "A2 ", "U3"]
    assert len(sent) == 5


async def test_a_second_consolidation_includes_the_first_summary(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"consolidation_chars": 1000})
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "A1 " + WORDS}, {"text": "A2 " + WORDS}, {"text": "SUMMARY-ONE"})
    await _turn(app, events, chat, pid, "U1 " + WORDS)
    await _turn(app, events, chat, pid, "U2 " + WORDS)
    await memory_cap(app).wait_background()
    fake_llm.script({"text": "A3 " + WORDS}, {"text": "SUMMARY-TWO"})
    await _turn(app, events, chat, pid, "U3 " + WORDS)
    await memory_cap(app).wait_background()
    second = fake_llm.model_requests()[-1].body["messages"][1]["content"]
    assert "Previous summary:\nSUMMARY-ONE" in second and "U2 " in second
    summaries = _summaries(app, chat)
    assert [content for content, _ in summaries] == ["SUMMARY-ONE", "SUMMARY-TWO"]
    assert summaries[1][1] > summaries[0][1]


async def test_a_failed_or_empty_summary_changes_nothing(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app(provider_factory=fast_retry_factory)
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"consolidation_chars": 1000})
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "A1 " + WORDS}, {"text": "A2 " + WORDS}, {"error": 400, "error_message": "nope"})
    await _turn(app, events, chat, pid, "U1 " + WORDS)
    await _turn(app, events, chat, pid, "U2 " + WORDS)
    await memory_cap(app).wait_background()
    assert _summaries(app, chat) == []
    fake_llm.script({"text": "A3"}, {"text": "   "})
    await _turn(app, events, chat, pid, "U3")
    await memory_cap(app).wait_background()
    assert _summaries(app, chat) == []
    # The turn after both failures still got the whole history.
    turn_request = [r for r in fake_llm.model_requests() if "U3" in str(r.body["messages"][-1])][0]
    assert [c[:3] for _, c in _contents(turn_request)[1:]] == ["U1 ", "A1 ", "U2 ", "A2 ", "U3"]


async def test_turn_done_does_not_wait_for_the_summary(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"consolidation_chars": 1000})
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"text": "A1 " + WORDS + WORDS + WORDS},
        {"text": "A2"},
        {"text": "SLOW SUMMARY", "delay_s": 0.5, "chunk_size": 100},
    )
    await _turn(app, events, chat, pid, "U1 " + WORDS)
    await memory_cap(app).wait_background()  # one exchange: nothing folds (its question stays)
    await _turn(app, events, chat, pid, "U2")
    cap = memory_cap(app)
    assert cap.services.consolidator.is_running(chat)  # turn_done came first
    assert (await ok(app, "memory.summaries", {"chat_id": chat}))["running"] is True
    await cap.wait_background()
    assert [content for content, _ in _summaries(app, chat)] == ["SLOW SUMMARY"]


def _stored(cursor: int, message: Message) -> StoredMessage:
    return StoredMessage(cursor=cursor, turn_id="t", message=message, created_at="")


def test_the_kept_part_never_starts_with_a_tool_result() -> None:
    call = ToolCall(id="c1", name="read_file", arguments="{}")
    tail = [
        _stored(1, Message(role="user", content="u" * 100)),
        _stored(2, Message(role="assistant", content="a" * 100)),
        _stored(3, Message(role="user", content="q" * 50)),
        _stored(4, Message(role="assistant", content="", tool_calls=(call,))),
        _stored(5, Message(role="tool", content="r" * 500, tool_call_id="c1", name="read_file")),
        _stored(6, Message(role="assistant", content="a" * 500)),
    ]
    plan = plan_consolidation("chat", None, tail, threshold=1000)
    assert plan is not None
    # 50% would start at the tool result (cursor 5); its call and its question stay with it.
    assert plan.keep_from_cursor == 3
    assert [m.role for m in plan.fold] == ["user", "assistant"]
    assert plan_consolidation("chat", None, tail, threshold=5000) is None


def test_one_exchange_is_not_split_from_its_question() -> None:
    tail = [
        _stored(1, Message(role="user", content="u" * 100)),
        _stored(2, Message(role="assistant", content="a" * 2000)),
    ]
    assert plan_consolidation("chat", None, tail, threshold=1000) is None
    # The first exchange is the oldest half: the kept part starts at the next question instead.
    more = [
        *tail,
        _stored(3, Message(role="user", content="u" * 10)),
        _stored(4, Message(role="assistant", content="b")),
    ]
    plan = plan_consolidation("chat", None, more, threshold=1000)
    assert plan is not None and plan.keep_from_cursor == 3


async def test_short_questions_long_answers_the_kept_part_starts_at_a_question(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """Issue 39 item 4: 18-character questions, 400-character answers; the first summary's kept
    part opens with a question, so the request after it reads summary, then a user message."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"consolidation_chars": 1000})
    chat = (await ok(app, "chats.create"))["id"]
    answer = ("x" * 399) + "."
    fake_llm.script(*({"text": f"{n}{answer[1:]}"} for n in "123"), {"text": "SUMMARY-ONE"})
    for n in "123":
        await _turn(app, events, chat, pid, f"Question number {n}?")  # 18 characters
    await memory_cap(app).wait_background()
    [(content, keep)] = _summaries(app, chat)
    assert content == "SUMMARY-ONE"
    fake_llm.script({"text": "A4"})
    await _turn(app, events, chat, pid, "Question number 4?")
    sent = _contents(fake_llm.model_requests()[-1])
    assert sent[1] == ("system", SUMMARY_PREFIX + "SUMMARY-ONE")
    assert sent[2] == ("user", "Question number 2?")
    assert [role for role, _ in sent[2:]] == ["user", "assistant", "user", "assistant", "user"]


async def test_import_summary_sets_where_the_model_context_begins(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "A1"}, {"text": "A2"}, {"text": "A3"})
    await _turn(app, events, chat, pid, "U1")
    await _turn(app, events, chat, pid, "U2")
    await ok(app, "memory.import_summary", {"chat_id": chat, "content": "IMPORTED", "keep_from_cursor": 3})
    await _turn(app, events, chat, pid, "U3")
    assert _contents(fake_llm.model_requests()[-1])[1:] == [
        ("system", SUMMARY_PREFIX + "IMPORTED"),
        ("user", "U2"),
        ("assistant", "A2"),
        ("user", "U3"),
    ]


def test_a_huge_unsummarised_history_is_folded_in_bounded_slices() -> None:
    tail = [
        _stored(i, Message(role="user" if i % 2 else "assistant", content="x" * 100)) for i in range(1, 101)
    ]
    plan = plan_consolidation("chat", None, tail, threshold=1000, max_fold_chars=1000)
    assert plan is not None and plan.partial
    assert len(plan.fold) == 10 and plan.keep_from_cursor == 11
    whole = plan_consolidation("chat", None, tail, threshold=1000)
    assert whole is not None and not whole.partial and whole.keep_from_cursor == 51
