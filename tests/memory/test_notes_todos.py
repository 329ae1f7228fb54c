"""Notes and todos: routes and the model's tools (writes asked, reads not)."""

from __future__ import annotations

import json
from typing import Any

from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.memory.helpers import approval


async def test_note_and_todo_routes(make_app: AppMaker) -> None:
    app, _ = await make_app()
    note = await ok(app, "notes.create", {"title": "  Shopping  list ", "content": "milk"})
    assert note["title"] == "Shopping list"
    assert [n["id"] for n in (await ok(app, "notes.list"))["notes"]] == [note["id"]]
    assert (await ok(app, "notes.get", {"id": note["id"]}))["content"] == "milk"
    assert (await err(app, "notes.get", {"id": note["id"][:8]}))["code"] == "invalid"
    assert (await err(app, "notes.create", {"title": "  "}))["code"] == "invalid"
    await ok(app, "notes.delete", {"id": note["id"]})
    assert (await err(app, "notes.get", {"id": note["id"]}))["code"] == "not_found"

    todo = await ok(app, "todos.create", {"title": "file taxes"})
    other = await ok(app, "todos.create", {"title": "call mum"})
    done = await ok(app, "todos.complete", {"id": todo["id"]})
    assert done["done"] and done["completed_at"]
    assert (await err(app, "todos.complete", {"id": todo["id"]}))["code"] == "conflict"
    listed = (await ok(app, "todos.list"))["todos"]
    assert [t["id"] for t in listed] == [other["id"], todo["id"]]  # open first
    await ok(app, "todos.delete", {"id": other["id"]})
    assert len((await ok(app, "todos.list"))["todos"]) == 1


async def test_the_model_creates_a_todo_after_approval_and_lists_without_asking(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "create_todo", "arguments": {"title": "buy milk"}}]},
        {"tool_calls": [{"name": "list_todos", "arguments": {}}]},
        {"text": "Added."},
    )
    chat = (await ok(app, "chats.create"))["id"]
    turn = await send(app, chat, "remind me to buy milk", pid)
    asked = await approval(events, turn)
    assert asked.tool == "create_todo" and "buy milk" in asked.detail
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert len([e for e in events.types(turn) if e == "approval_required"]) == 1
    listed = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"][-1]
    assert [t["title"] for t in json.loads(listed["content"])["todos"]] == ["buy milk"]
