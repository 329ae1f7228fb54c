"""Issue 39 items 1-2: every line Dream or save_memory writes says where it came from, and a
forgotten line stays forgotten (scripted LLM over real HTTP, real Dream runs)."""

from __future__ import annotations

import json
from typing import Any

from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.memory.helpers import approval


async def _say(app: Any, events: Any, fake_llm: Any, pid: str, chat: str, text: str) -> None:
    fake_llm.script({"text": "Noted."})
    turn = await send(app, chat, text, pid)
    assert (await events.turn_end(turn)).type == "turn_done"


async def test_a_dream_line_names_its_chat_and_message_and_forgetting_sticks(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    first = (await ok(app, "chats.create"))["id"]
    await _say(app, events, fake_llm, pid, first, "I like green tea.")
    await _say(app, events, fake_llm, pid, first, "My dentist is Dr Okafor")
    fake_llm.script(
        {"text": "ADD: tea; ADD: dentist"},
        {"text": "# About the user\n- Likes green tea\n- The user's dentist is Dr Okafor\n"},
    )
    assert (await ok(app, "dream.run"))["status"] == "applied"

    why = (await ok(app, "memory.why", {"text": "okafor"}))["lines"]
    assert [w["line"] for w in why] == ["- The user's dentist is Dr Okafor"]
    [source] = why[0]["sources"]
    assert source["author"] == "dream" and source["chat_id"] == first
    assert source["cursors"] == [3]  # "My dentist is Dr Okafor", not the tea message (cursor 1)
    assert source["created_at"] and source["version_id"] is not None
    # Editing spacing or moving the line keeps its source; a line written by hand has none.
    await ok(
        app,
        "memory.save",
        {"text": "# Me\n-   the user's dentist is  Dr Okafor\n- Likes green tea\n- Hand-made\n"},
    )
    moved = (await ok(app, "memory.why", {"text": "OKAFOR"}))["lines"]
    assert moved[0]["sources"][0]["cursors"] == [3]
    assert (await ok(app, "memory.why", {"text": "hand-made"}))["lines"][0]["sources"] == []

    forgot = await ok(app, "memory.forget", {"text": "okafor"})
    assert forgot["forgotten"] == ["-   the user's dentist is  Dr Okafor"]
    assert "okafor" not in (await ok(app, "memory.get"))["text"].lower()
    [tomb] = (await ok(app, "memory.forgotten"))["forgotten"]
    assert tomb["line"] == "the user's dentist is  Dr Okafor" and tomb["version_id"] == forgot["version_id"]
    assert (await err(app, "memory.forget", {"text": "okafor"}))["code"] == "not_found"

    # A second chat repeats it; the next run does not write it back (even reworded) and its
    # request carries the tombstone.
    second = (await ok(app, "chats.create"))["id"]
    await _say(app, events, fake_llm, pid, second, "Reminder: my dentist is Dr Okafor.")
    text = (await ok(app, "memory.get"))["text"]
    fake_llm.script({"text": "ADD: dentist"}, {"text": text + "- Dentist: Dr. Okafor\n"})
    before = len(fake_llm.model_requests())
    ran = await ok(app, "dream.run")
    phase1 = fake_llm.model_requests()[before].body["messages"][1]["content"]
    assert "Forgotten by the user" in phase1 and "Dr Okafor" in phase1.split("Forgotten by the user")[1]
    assert ran["status"] == "unchanged"
    assert "okafor" not in (await ok(app, "memory.get"))["text"].lower()

    # Un-forget is one action; the next run may write it again.
    assert (await ok(app, "memory.unforget", {"id": tomb["id"]}))["id"] == tomb["id"]
    assert (await ok(app, "memory.forgotten"))["forgotten"] == []
    await _say(app, events, fake_llm, pid, second, "Yes, Dr Okafor is still my dentist.")
    fake_llm.script({"text": "ADD: dentist"}, {"text": text + "- Dentist: Dr. Okafor\n"})
    assert (await ok(app, "dream.run"))["status"] == "applied"
    assert "- Dentist: Dr. Okafor" in (await ok(app, "memory.get"))["text"]
    back = (await ok(app, "memory.why", {"text": "dentist: dr. okafor"}))["lines"][0]["sources"]
    assert back[0]["chat_id"] == second


async def test_a_revert_keeps_sources_and_brings_a_forgotten_line_back(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    await _say(app, events, fake_llm, pid, chat, "My dentist is Dr Okafor")
    fake_llm.script({"text": "ADD"}, {"text": "- Dentist is Dr Okafor\n"})
    applied = await ok(app, "dream.run")
    await ok(app, "memory.forget", {"text": "okafor"})
    await ok(app, "memory.revert", {"version_id": applied["version_id"]})
    assert (await ok(app, "memory.forgotten"))["forgotten"] == []  # the user asked for it back
    assert (await ok(app, "memory.why", {"text": "okafor"}))["lines"][0]["sources"][0]["chat_id"] == chat


async def test_save_memory_records_its_chat_message_and_date_and_honours_forgetting(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "save_memory", "arguments": {"fact": "Prefers window seats"}}]},
        {"text": "Saved."},
    )
    turn = await send(app, chat, "Remember I prefer window seats", pid)
    asked = await approval(events, turn)
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    [line] = (await ok(app, "memory.why", {"text": "window seats"}))["lines"]
    [source] = line["sources"]
    assert source["author"] == "save_memory" and source["chat_id"] == chat and source["cursors"] == [1]
    assert source["created_at"][:4].isdigit()

    # The model can read a line's source, and forget a line when the user asks.
    fake_llm.script(
        {"tool_calls": [{"name": "memory_source", "arguments": {"text": "window"}}]},
        {"tool_calls": [{"name": "forget_memory", "arguments": {"line": "window seats"}}]},
        {"text": "Forgotten."},
    )
    turn = await send(app, chat, "Where did you learn that? Then forget it.", pid)
    asked = await approval(events, turn)
    assert asked.tool == "forget_memory" and "Prefers window seats" in asked.detail
    tool_results = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"]
    sourced = json.loads(tool_results[-1]["content"])["lines"][0]["sources"][0]
    assert sourced["chat_id"] == chat and sourced["messages"] == [1] and sourced["date"]
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert "window" not in (await ok(app, "memory.get"))["text"]

    # save_memory never writes a forgotten fact back.
    fake_llm.script(
        {"tool_calls": [{"name": "save_memory", "arguments": {"fact": "prefers window seats"}}]},
        {"text": "ok"},
    )
    turn = await send(app, chat, "save it again", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    result = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "forgotten by the user" in result["content"]
    assert "window" not in (await ok(app, "memory.get"))["text"]


async def test_explicit_memories_record_which_chat_or_command_asked(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "remember_memory", "arguments": {"content": "Prefers uv"}}]}, {"text": "ok"}
    )
    turn = await send(app, chat, "remember that I prefer uv", pid)
    asked = await approval(events, turn)
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    [stored] = (await ok(app, "memories.list"))["memories"]
    assert stored["asked_by"] == f"chat:{chat}"


async def test_each_proposed_line_names_its_chat_message_and_date_in_the_review_list(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """Issue 39 item 3: with the review inbox on, dream.proposals returns each proposed line's
    source (chat id and title, the message, the date)."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.settings_update", {"dream_review": True})
    await ok(app, "memory.save", {"text": "# About the user\n- Likes green tea\n"})
    chat = (await ok(app, "chats.create", {"title": "Health admin"}))["id"]
    await _say(app, events, fake_llm, pid, chat, "I walk to work.")
    await _say(app, events, fake_llm, pid, chat, "My dentist is Dr Okafor")
    fake_llm.script(
        {"text": "ADD: dentist"},
        {"text": "# About the user\n- Likes green tea\n- The user's dentist is Dr Okafor\n"},
    )
    ran = await ok(app, "dream.run")
    assert ran["status"] == "proposed"

    [proposal] = (await ok(app, "dream.proposals"))["proposals"]
    assert proposal["id"] == ran["proposal_id"]
    # Only the line the proposal adds, not the one already in MEMORY.md.
    [line] = proposal["lines"]
    assert line["line"] == "- The user's dentist is Dr Okafor"
    [source] = line["sources"]
    assert source["chat_id"] == chat and source["chat_title"] == "Health admin"
    assert source["cursors"] == [3] and source["message"] == "My dentist is Dr Okafor"
    assert source["created_at"] >= proposal["created_at"]
    # Rejected, it leaves the list (and its line never reaches MEMORY.md).
    await ok(app, "dream.reject", {"id": proposal["id"]})
    assert (await ok(app, "dream.proposals"))["proposals"] == []
