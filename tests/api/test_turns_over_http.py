"""Acceptance: whole turns through CashCodeApp against the fake LLM server over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import SessionUpdated, TurnDone, TurnFailed, UsageEvent
from tests.api.conftest import KINDS, VALID_KEY, AppMaker, add_provider, fast_retry_factory, ok, send


def _body_text(request: Any) -> str:
    return json.dumps(request.body)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_streamed_text_turn_emits_ordered_events_and_is_stored(
    make_app: AppMaker, fake_llm: Any, kind: str
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, kind)
    fake_llm.script({"text": "Hello there, friend.", "chunk_size": 4, "usage": {"input": 12, "output": 5}})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "Say hello", pid)
    end = await events.turn_end(turn)
    assert end.type == "turn_done", end
    types = events.types(turn)
    assert types[0] == "turn_started" and types[-2:] == ["usage", "turn_done"]
    assert set(types[1:-2]) == {"delta"} and len(types) > 4
    messages = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "Say hello"),
        ("assistant", "Hello there, friend."),
    ]
    usage = events.of(UsageEvent)[0]
    assert (usage.input_tokens, usage.output_tokens) == (12, 5)
    titled = events.of(SessionUpdated)[0]
    assert titled.title == "Say hello"


@pytest.mark.parametrize("kind", KINDS)
async def test_two_tool_calls_run_and_both_results_reach_the_next_request(
    make_app: AppMaker, fake_llm: Any, workspace: Path, kind: str
) -> None:
    (workspace / "a.txt").write_text("alpha content\n")
    (workspace / "b.txt").write_text("beta content\n")
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, kind)
    fake_llm.script(
        {
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "a.txt"}},
                {"name": "read_file", "arguments": {"path": "b.txt"}},
            ],
            "split_args": True,
        },
        {"text": "Both files read."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "read both", pid)
    end = await events.turn_end(turn)
    assert end.type == "turn_done", end
    second = fake_llm.model_requests()[1]
    assert "alpha content" in _body_text(second) and "beta content" in _body_text(second)
    roles = [m["role"] for m in (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"]
    records = app.ctx.usage.for_chat(chat["id"])
    assert len(records) == 2 and all(r.provider_id == pid for r in records)


ERRORS: dict[str, dict[str, Any]] = {
    "wrong_key": {},
    "unknown_model": {},
    "rate_limit": {"error": 429, "retry_after": 1},
    "server_error": {"error": 500},
    "disconnect": {"disconnect_after": 2, "text": "This answer will be cut off midway."},
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", list(ERRORS))
async def test_provider_errors_fail_the_turn_clearly_and_store_nothing(
    make_app: AppMaker, fake_llm: Any, kind: str, case: str
) -> None:
    app, events = await make_app(provider_factory=fast_retry_factory)
    pid = await add_provider(
        app, fake_llm, kind, key="sk-wrong-key-000000" if case == "wrong_key" else VALID_KEY
    )
    if ERRORS[case]:
        fake_llm.script(*[ERRORS[case]] * 6)  # more than the retries
    model = "no-such-model" if case == "unknown_model" else "fake-model"
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid, model=model)
    end = await events.turn_end(turn)
    assert isinstance(end, TurnFailed), end
    assert end.error.message and "Traceback" not in end.error.message
    assert "sk-wrong-key-000000" not in end.error.message
    expected = {
        "wrong_key": {"auth"},
        "unknown_model": {"model_not_found", "not_found"},
        "rate_limit": {"rate_limit"},
        "server_error": {"server"},
        "disconnect": {"disconnected"},
    }[case]
    assert end.error.code in expected, end.error
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []
    assert "turn_done" not in events.types(turn)


async def test_retry_reruns_the_failed_turn_with_the_same_text(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app(provider_factory=fast_retry_factory)
    pid = await add_provider(app, fake_llm, "chat_completions")
    # A 500 is sent twice (app/llm/retry.py: a deterministic server error is retried once).
    fake_llm.script(*[{"error": 500}] * 2, {"text": "Second time lucky."})
    chat = await ok(app, "chats.create")
    failed = await send(app, chat["id"], "try me", pid)
    assert (await events.turn_end(failed)).type == "turn_failed"
    retried = (await ok(app, "chat.retry", {"chat_id": chat["id"]}))["turn_id"]
    assert (await events.turn_end(retried)).type == "turn_done"
    messages = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert [m["content"] for m in messages] == ["try me", "Second time lucky."]


async def test_sending_with_a_model_remembers_it_as_the_last_choice(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hi", pid, model="fake-tools")
    await events.turn_end(turn)
    assert (await ok(app, "settings.get"))["last_model"] == {"provider_id": pid, "model": "fake-tools"}
    # without a model the remembered one is used
    turn = (await ok(app, "chat.send", {"chat_id": chat["id"], "text": "again"}))["turn_id"]
    await events.turn_end(turn)
    assert fake_llm.model_requests()[-1].body["model"] == "fake-tools"


async def test_models_are_discovered_across_providers_and_failures_are_collected(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, _ = await make_app(provider_factory=fast_retry_factory)
    good = await add_provider(app, fake_llm, "chat_completions")
    await add_provider(app, fake_llm, "chat_completions", key="sk-wrong-key-000000")
    listed = await ok(app, "models.list", {})
    assert {m["model"] for m in listed["models"] if m["provider_id"] == good} == {
        "fake-model",
        "fake-tools",
        "fake-vision",
    }
    assert len(listed["errors"]) == 1 and listed["errors"][0]["code"] == "auth"
    test = await ok(app, "providers.test", {"provider_id": good})
    assert test["ok"] is True and test["model_count"] == 3


async def test_ollama_is_detected_when_it_answers(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app(env={"OLLAMA_HOST": fake_llm.base_url})
    probe = await ok(app, "app.detect_ollama")
    assert probe["found"] is True and "fake-model" in probe["models"]


async def test_editing_a_provider_mid_turn_does_not_break_the_running_stream(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "a steady stream of words", "chunk_size": 3, "delay_s": 0.05})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "talk", pid)
    await events.until(lambda: "delta" in events.types(turn))
    view = (await ok(app, "providers.list"))["providers"][0]
    await ok(
        app,
        "providers.save",
        {
            "id": pid,
            "name": "Renamed",
            "kind": view["kind"],
            "base_url": view["base_url"],
            "api_key": "********",
        },
    )
    end = await events.turn_end(turn)
    assert isinstance(end, TurnDone) and end.text == "a steady stream of words"


@pytest.mark.parametrize("kind", KINDS)
async def test_the_stored_tool_chain_is_sent_back_on_the_next_turn(
    make_app: AppMaker, fake_llm: Any, workspace: Path, kind: str
) -> None:
    (workspace / "a.txt").write_text("alpha content\n")
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, kind)
    fake_llm.script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "It says alpha."},
        {"text": "Still alpha."},
    )
    chat = await ok(app, "chats.create")
    first = await send(app, chat["id"], "read a", pid)
    assert (await events.turn_end(first)).type == "turn_done"
    second = await send(app, chat["id"], "and again?", pid)
    assert (await events.turn_end(second)).type == "turn_done"
    body = _body_text(fake_llm.model_requests()[-1])
    for needle in ("read a", "alpha content", "It says alpha.", "and again?"):
        assert needle in body, needle


async def test_a_call_repeated_with_the_same_result_is_not_run_a_fourth_time(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    # Issue 40 item 3: a real model called the same tool with the same arguments 20 times.
    (workspace / "notes.txt").write_text("the only note\n")
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    same = [{"name": "read_file", "arguments": {"path": "notes.txt"}}]
    fake_llm.script(*[{"tool_calls": same} for _ in range(5)], {"text": "One note."})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "read my notes", pid)
    end = await events.turn_end(turn)
    assert isinstance(end, TurnDone) and end.text == "One note.", end
    requests = fake_llm.model_requests()
    assert len(requests) == 6

    def last_tool_message(request: Any) -> str:
        tool = [m for m in request.body["messages"] if m["role"] == "tool"][-1]
        return str(tool["content"])

    assert all("the only note" in last_tool_message(r) for r in requests[1:4])
    for request in requests[4:]:  # the 4th and 5th identical call: told, not run
        said = last_tool_message(request)
        assert "Not run again" in said and "3 times" in said and "the only note" not in said
    results = [e for e in events.events if e.type == "tool_result" and getattr(e, "turn_id", "") == turn]
    assert [getattr(e, "denied", None) for e in results] == [False, False, False, True, True]
