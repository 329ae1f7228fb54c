"""A broken stored history is repaired before it reaches a provider (issue 24 item 4): unit
cases, then a real turn over the fake LLM on a chat whose rows were planted broken."""

from __future__ import annotations

from typing import Any

from app.contracts.messages import Message, ToolCall
from app.core.history_repair import repair_history
from tests.api.conftest import AppMaker, add_provider, ok, send


def _roles(messages: list[Message]) -> list[str]:
    return [m.role for m in messages]


def test_a_whole_history_is_left_as_it_is() -> None:
    call = ToolCall(id="c1", name="read_file", arguments="{}")
    history = [
        Message(role="system", content="summary"),
        Message(role="user", content="q"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1", name="read_file", content="r"),
        Message(role="assistant", content="a"),
    ]
    repaired = repair_history(history)
    assert repaired.messages == history and not repaired.changed


def test_orphans_unanswered_calls_and_users_in_a_row_are_repaired() -> None:
    answered = ToolCall(id="c1", name="read_file")
    lost = ToolCall(id="c2", name="exec")
    history = [
        Message(role="tool", tool_call_id="zz", name="x", content="orphan at the start"),
        Message(role="user", content="first"),
        Message(role="user", content="second"),
        Message(role="assistant", content="let me look", tool_calls=(answered, lost)),
        Message(role="tool", tool_call_id="c1", name="read_file", content="r"),
        Message(role="tool", tool_call_id="c9", name="x", content="answers nothing"),
        Message(role="assistant", tool_calls=(ToolCall(id="c3", name="exec"),)),  # never answered
        Message(role="user", content="third"),
    ]
    repaired = repair_history(history)
    assert _roles(repaired.messages) == ["user", "assistant", "tool", "user"]
    assert repaired.messages[0].content == "first\n\nsecond"
    assert [c.id for c in repaired.messages[1].tool_calls] == ["c1"]
    assert (repaired.orphan_results, repaired.unanswered_calls, repaired.joined_user_messages) == (2, 2, 1)
    assert repaired.problems == [
        "2 tool results without their call",
        "2 tool calls without a result",
        "1 user messages in a row (joined)",
    ]


async def test_a_turn_on_a_planted_broken_history_sends_a_valid_one(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    app.ctx.chats.append_turn(
        chat,
        "planted",
        [
            Message(role="user", content="PLANTED-ONE"),
            Message(role="user", content="PLANTED-TWO"),
            Message(role="tool", tool_call_id="nope", name="exec", content="ORPHAN"),
            Message(role="assistant", content="an answer"),
        ],
    )
    fake_llm.script({"text": "fine"})
    assert (await events.turn_end(await send(app, chat, "next", pid))).type == "turn_done"
    sent = fake_llm.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1]["content"].startswith("PLANTED-ONE") and "PLANTED-TWO" in sent[1]["content"]
    assert all("ORPHAN" not in str(m.get("content")) for m in sent)
