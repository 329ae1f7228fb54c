"""Issue 35 item 4: steer a running turn, queue messages behind it (the API routes, against the
scripted LLM over HTTP and a real `exec` child that waits for the test)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from app.contracts.events import ApprovalRequired, TurnQueueChanged, TurnSteered
from tests.api.conftest import AppMaker, Recorder, add_provider, err, ok, send

# A tool that runs until the test lets it go: the steer surely arrives while it runs.
WAIT_FOR_GO = (
    "import os, time\n"
    "open('started', 'w').write('1')\n"
    "while not os.path.exists('go'):\n"
    "    time.sleep(0.02)\n"
    "print('tool finished')\n"
)


async def _bounded(predicate: Any, timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not predicate():  # noqa: ASYNC110  polls a file a child process writes: no event to await
            await asyncio.sleep(0.02)


async def _start_slow_tool_turn(
    app: Any, events: Recorder, fake_llm: Any, workspace: Path, *then: dict[str, Any]
) -> tuple[str, str, str]:
    """A turn whose first step runs the waiting tool; `then` answers the next requests."""
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "exec", "arguments": {"argv": [sys.executable, "-c", WAIT_FOR_GO]}}]},
        *(then or ({"text": "Done, in metric units."},)),
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "measure the room", pid)
    await events.until(lambda: "approval_required" in events.types(turn))
    approval = events.of(ApprovalRequired)[0]
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "once"})
    await _bounded(lambda: (workspace / "started").exists())
    return chat["id"], turn, pid


async def test_a_steer_during_a_slow_tool_reaches_the_next_request_right_after_the_tool_result(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    chat_id, turn, _ = await _start_slow_tool_turn(app, events, fake_llm, workspace)
    ref = await ok(app, "chat.steer", {"chat_id": chat_id, "text": "  use metric units  "})
    assert ref == {"chat_id": chat_id, "turn_id": turn}
    (workspace / "go").write_text("1")
    await events.until(lambda: "turn_done" in events.types(turn))

    second = fake_llm.model_requests()[1].body["messages"]
    roles = [(m["role"], m.get("content")) for m in second]
    tool_at = next(i for i, (role, _) in enumerate(roles) if role == "tool")
    assert "tool finished" in str(roles[tool_at][1])
    assert roles[tool_at + 1] == ("user", "use metric units")
    assert len(roles) == tool_at + 2  # the steer is the last message the model reads
    assert [e.text for e in events.of(TurnSteered)] == ["use metric units"]

    # Stored in the turn at that place, marked as a steer: the chat shows it there.
    stored = (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"]
    assert [(m["role"], m["steer"]) for m in stored] == [
        ("user", False),
        ("assistant", False),
        ("tool", False),
        ("user", True),
        ("assistant", False),
    ]
    assert stored[3]["content"] == "use metric units" and stored[3]["turn_id"] == turn
    assert stored[4]["content"] == "Done, in metric units."


async def test_a_steer_while_the_answer_streams_is_answered_in_the_same_turn(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"text": "inches " * 100, "chunk_size": 7, "delay_s": 0.05}, {"text": "Centimetres, then."}
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "how long is it", pid)
    await events.until(lambda: "delta" in events.types(turn))
    await ok(app, "chat.steer", {"chat_id": chat["id"], "text": "in cm please"})
    await events.until(lambda: "turn_done" in events.types(turn))
    requests = fake_llm.model_requests()
    assert len(requests) == 2
    last = requests[1].body["messages"]
    assert (last[-2]["role"], last[-1]["role"], last[-1]["content"]) == ("assistant", "user", "in cm please")
    stored = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert [m["role"] for m in stored] == ["user", "assistant", "user", "assistant"]
    assert stored[-1]["content"] == "Centimetres, then." and {m["turn_id"] for m in stored} == {turn}


async def test_steer_needs_a_running_turn_and_text(make_app: AppMaker, fake_llm: Any) -> None:
    app, _ = await make_app()
    chat = await ok(app, "chats.create")
    idle = await err(app, "chat.steer", {"chat_id": chat["id"], "text": "hello"})
    assert idle["code"] == "not_found" and "no running turn" in idle["message"]
    assert (await err(app, "chat.steer", {"chat_id": chat["id"], "text": "  "}))["code"] == "invalid"
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []


async def test_a_stopped_steered_turn_keeps_the_steer_where_it_was_given(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    slow = {"text": "metric " * 200, "chunk_size": 5, "delay_s": 0.2}
    chat_id, turn, _ = await _start_slow_tool_turn(app, events, fake_llm, workspace, slow)
    await ok(app, "chat.steer", {"chat_id": chat_id, "text": "use metric units"})
    (workspace / "go").write_text("1")
    await events.until(lambda: "delta" in events.types(turn))
    await ok(app, "chat.cancel", {"chat_id": chat_id})
    await events.until(lambda: "turn_cancelled" in events.types(turn))
    stored = (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"]
    assert [(m["role"], m["steer"], m["stopped"]) for m in stored] == [
        ("user", False, False),
        ("assistant", False, False),
        ("tool", False, False),
        ("user", True, False),
        ("assistant", False, True),
    ]
    refused = await err(app, "chat.steer", {"chat_id": chat_id, "text": "too late"})
    assert refused["code"] == "not_found"


async def test_two_queued_messages_become_the_next_two_turns_in_order(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    answers = ({"text": "Done."}, {"text": "First follow-up answered."}, {"text": "Second answered."})
    chat_id, turn, pid = await _start_slow_tool_turn(app, events, fake_llm, workspace, *answers)
    model = {"provider_id": pid, "model": "fake-model"}
    first = await ok(app, "chat.queue", {"chat_id": chat_id, "text": "then list the files", "model": model})
    second = await ok(app, "chat.queue", {"chat_id": chat_id, "text": "and count them", "model": model})
    assert (first["position"], first["turn_id"], second["position"]) == (1, None, 2)
    assert events.of(TurnQueueChanged)[-1].texts == ["then list the files", "and count them"]
    (workspace / "go").write_text("1")
    await events.until(lambda: events.types().count("turn_done") == 3, timeout_s=15.0)

    stored = (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"]
    users = [m["content"] for m in stored if m["role"] == "user"]
    assert users == ["measure the room", "then list the files", "and count them"]
    assert [m["content"] for m in stored if m["role"] == "assistant" and m["content"]] == [
        "Done.",
        "First follow-up answered.",
        "Second answered.",
    ]
    assert events.of(TurnQueueChanged)[-1].texts == []


async def test_stop_drops_the_queue_and_says_what_was_dropped(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    chat_id, turn, pid = await _start_slow_tool_turn(app, events, fake_llm, workspace)
    model = {"provider_id": pid, "model": "fake-model"}
    await ok(app, "chat.queue", {"chat_id": chat_id, "text": "one", "model": model})
    await ok(app, "chat.queue", {"chat_id": chat_id, "text": "two", "model": model})
    await ok(app, "chat.cancel", {"chat_id": chat_id})
    await events.until(lambda: "turn_cancelled" in events.types(turn))
    assert events.of(TurnQueueChanged)[-1].returned == ["one", "two"]
    assert events.of(TurnQueueChanged)[-1].texts == []
    # What waited is not sent later: the next turn is the next one typed, and only it.
    await app.turns.wait(chat_id)
    fake_llm.script({"text": "Fresh start."})
    after = await send(app, chat_id, "after stop", pid)
    await events.until(lambda: "turn_done" in events.types(after))
    await ok(app, "chat.queue", {"chat_id": chat_id, "text": "idle again", "model": model})
    await events.until(lambda: events.types().count("turn_done") == 2)
    stored = (await ok(app, "chats.get", {"chat_id": chat_id}))["messages"]
    assert [m["content"] for m in stored if m["role"] == "user"] == ["after stop", "idle again"]


async def test_queue_on_an_idle_chat_sends_at_once(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "Hi."})
    chat = await ok(app, "chats.create")
    model = {"provider_id": pid, "model": "fake-model"}
    sent = await ok(app, "chat.queue", {"chat_id": chat["id"], "text": "hello", "model": model})
    assert sent["position"] == 0 and sent["turn_id"]
    await events.until(lambda: "turn_done" in events.types(sent["turn_id"]))
    assert (await err(app, "chat.queue", {"chat_id": chat["id"], "text": " ", "model": model}))[
        "code"
    ] == "invalid"


async def test_a_steered_turn_exports_and_imports_with_its_steer_mark(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    app, events = await make_app()
    chat_id, turn, _ = await _start_slow_tool_turn(app, events, fake_llm, workspace)
    await ok(app, "chat.steer", {"chat_id": chat_id, "text": "use metric units"})
    (workspace / "go").write_text("1")
    await events.until(lambda: "turn_done" in events.types(turn))
    exported = await ok(app, "chats.export", {"chat_id": chat_id, "format": "json"})
    copy = await ok(app, "chats.import", {"content": exported["content"]})
    messages = (await ok(app, "chats.get", {"chat_id": copy["id"]}))["messages"]
    assert [(m["role"], m["steer"]) for m in messages if m["role"] == "user"] == [
        ("user", False),
        ("user", True),
    ]
