"""Issue 24 item 4: a stored history that breaks the invariants (two user messages in a row, a
tool result without its call, a call without its result) is never sent to a provider as is."""

from __future__ import annotations

from typing import Any

from app.contracts.messages import Message, ToolCall
from tests.api.conftest import AppMaker, add_provider, ok, send


async def test_a_damaged_history_is_repaired_in_the_request_and_left_stored(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "Fine."})
    chat = await ok(app, "chats.create", {"title": "Damaged"})
    chats = app.ctx.chats
    # As another program (or an older build) could have left it: written row by row.
    chats.append_turn(chat["id"], "t1", [Message(role="user", content="first")])
    chats.append_turn(
        chat["id"],
        "t2",
        [
            Message(role="user", content="second"),
            Message(role="tool", content="orphan result", tool_call_id="call_x", name="read_file"),
            Message(
                role="assistant",
                content="",
                tool_calls=(ToolCall(id="call_y", name="read_file", arguments="{}"),),
            ),
        ],
    )
    chats.append_turn(chat["id"], "t3", [Message(role="user", content="third")])
    turn = await send(app, chat["id"], "fourth", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    sent = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] != "system"]
    roles = [m["role"] for m in sent]
    assert all(not (a == b == "user") for a, b in zip(roles, roles[1:], strict=False)), roles
    assert "orphan result" not in str(sent)
    call_ids = {c["id"] for m in sent for c in m.get("tool_calls") or []}
    results = {m.get("tool_call_id") for m in sent if m["role"] == "tool"}
    assert results == call_ids == {"call_y"}
    assert [m["content"] for m in sent if m["role"] == "user"] == ["first", "second", "third", "fourth"]
    stored = (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"]
    assert "orphan result" in str(stored)  # the rows are left as they are
