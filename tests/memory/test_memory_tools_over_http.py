"""The model's memory tools in real turns (scripted LLM over HTTP): writes are asked, search is
not; the system prompt carries SOUL.md first and MEMORY.md under its heading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.core.prompt import DEFAULT_PERSONA
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.memory.helpers import approval


async def test_remember_asks_first_then_search_finds_it_without_asking(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {
            "tool_calls": [
                {"name": "remember_memory", "arguments": {"content": "Prefers uv", "tags": ["Python"]}}
            ]
        },
        {"text": "Remembered."},
        {"tool_calls": [{"name": "search_memories", "arguments": {"keywords": ["uv"], "tags": ["python"]}}]},
        {"text": "You prefer uv."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "remember that I prefer uv", pid)
    asked = await approval(events, turn)
    assert asked.tool == "remember_memory" and "Prefers uv" in asked.detail
    listed = (await ok(app, "memories.list"))["memories"]
    assert listed == []  # nothing is written before the user agrees
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn)).type == "turn_done"
    stored = (await ok(app, "memories.list"))["memories"]
    assert [(m["content"], m["tags"]) for m in stored] == [("Prefers uv", ["python"])]
    assert stored[0]["id"] in asked.detail  # the confirmed id is the written id

    turn2 = await send(app, chat["id"], "what do I prefer?", pid)
    assert (await events.turn_end(turn2)).type == "turn_done"
    assert "approval_required" not in events.types(turn2)
    result = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"][-1]
    assert json.loads(result["content"])["memories"][0]["id"] == stored[0]["id"]


async def test_forget_denied_keeps_the_memory(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    mem = await ok(app, "memories.add", {"content": "likes tea", "tags": []})
    fake_llm.script(
        {"tool_calls": [{"name": "forget_memory", "arguments": {"id": mem["id"]}}]}, {"text": "ok"}
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "forget tea", pid)
    asked = await approval(events, turn)
    assert "likes tea" in asked.detail
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "deny"})
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (await ok(app, "memories.list"))["total"] == 1


async def test_prompt_has_soul_first_then_memory_md(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.save", {"text": "- The user's cat is called Miso"})
    fake_llm.script({"text": "hi"}, {"text": "hi again"})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    system = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    assert system.startswith(DEFAULT_PERSONA)
    assert "## Information you already remember\n- The user's cat is called Miso" in system

    await ok(app, "soul.save", {"text": "You are Cash, a terse pirate."})
    turn = await send(app, chat["id"], "hello again", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    system = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    assert system.startswith("You are Cash, a terse pirate.") and "Miso" in system
    assert (paths.data_dir / "SOUL.md").read_text(encoding="utf-8") == "You are Cash, a terse pirate.\n"


async def test_save_memory_appends_to_memory_md_as_a_version(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app(env={})
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    await ok(app, "memory.save", {"text": "# Facts\n- one"})
    fake_llm.script(
        {"tool_calls": [{"name": "save_memory", "arguments": {"fact": "two"}}]}, {"text": "saved"}
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "save two", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    assert (await ok(app, "memory.get"))["text"] == "# Facts\n- one\n- two\n"
    versions = (await ok(app, "memory.versions"))["versions"]
    assert [v["author"] for v in versions] == ["save_memory", "user"]
    assert "+- two" in versions[0]["diff"]


async def test_oversized_soul_is_refused_with_a_clear_error(make_app: AppMaker, paths: AppPaths) -> None:
    app, _ = await make_app()
    await ok(app, "soul.save", {"text": "short persona"})
    error = await err(app, "soul.save", {"text": "x" * 20_001})
    assert error["code"] == "invalid" and "20000 characters" in error["message"]
    assert (await ok(app, "soul.get"))["text"] == "short persona\n"
    (paths.data_dir / "SOUL.md").write_text("y" * 30_000, encoding="utf-8")
    doc = await ok(app, "soul.get")
    assert doc["notice"] and "longer than" in doc["notice"]
    await ok(app, "soul.save", {"text": ""})
    doc = await ok(app, "soul.get")
    assert doc["is_default"] and doc["text"] == DEFAULT_PERSONA
    assert not Path(paths.data_dir / "SOUL.md").exists()


async def test_a_memory_md_that_is_not_utf8_is_reported_and_kept(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    bad = b"- caf\xe9\n"
    (paths.data_dir / "MEMORY.md").write_bytes(bad)
    error = await err(app, "memory.get")
    assert error["code"] == "invalid" and "not valid UTF-8" in error["message"]
    fake_llm.script(
        {"tool_calls": [{"name": "save_memory", "arguments": {"fact": "x"}}]}, {"text": "could not"}
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "save x", pid)
    assert (await events.turn_end(turn)).type == "turn_done"  # the turn goes on without MEMORY.md
    first, second = fake_llm.model_requests()[-2:]
    assert "Information you already remember" not in first.body["messages"][0]["content"]
    tool_result = [m for m in second.body["messages"] if m["role"] == "tool"][-1]["content"]
    assert "not valid UTF-8" in tool_result
    assert (paths.data_dir / "MEMORY.md").read_bytes() == bad


async def test_deleting_a_chat_removes_its_summaries_and_dream_cursor(make_app: AppMaker) -> None:
    from app.contracts.messages import Message
    from tests.memory.helpers import memory_cap

    app, _ = await make_app()
    services = memory_cap(app).services
    chat = (await ok(app, "chats.create"))["id"]
    services.chats.append_turn(
        chat, "t1", [Message(role="user", content="hi"), Message(role="assistant", content="yo")]
    )
    await ok(app, "memory.import_summary", {"chat_id": chat, "content": "S", "keep_from_cursor": 2})
    services.dream.cursors.advance(services.dream.cursors.pending())
    await ok(app, "chats.delete", {"chat_id": chat})
    assert app.ctx.db.query("SELECT count(*) FROM chat_summaries")[0][0] == 0
    assert app.ctx.db.query("SELECT count(*) FROM dream_cursors")[0][0] == 0


async def test_search_memories_with_nothing_to_search_for_is_an_error(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """Issue 39 item 5: the tool answers with the CLI's and REST's words."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memories.add", {"content": "likes tea", "tags": []})
    fake_llm.script(
        {"tool_calls": [{"name": "search_memories", "arguments": {"keywords": [], "tags": []}}]},
        {"text": "ok"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "what do you remember?", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    result = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "say what to search for: give at least one word or tag" in result["content"]
    assert "likes tea" not in result["content"]


async def test_a_duplicate_memory_is_refused_before_anyone_is_asked(
    make_app: AppMaker, fake_llm: Any
) -> None:
    # Issue 40 item 19: the user was asked to confirm, and only then told it was a duplicate.
    fridays = "Deploys happen on Fridays"
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    first = await ok(app, "memories.add", {"content": fridays, "tags": []})
    other = await ok(app, "memories.add", {"content": "Deploys happen on Mondays", "tags": []})
    fake_llm.script(
        {"tool_calls": [{"name": "remember_memory", "arguments": {"content": f" {fridays} "}}]},
        {"tool_calls": [{"name": "update_memory", "arguments": {"id": other["id"], "content": fridays}}]},
        {"text": "Already known."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "remember that deploys happen on Fridays", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    assert "approval_required" not in events.types(turn)  # nobody was asked
    requests = fake_llm.model_requests()
    for request in requests[1:3]:
        told = [m for m in request.body["messages"] if m["role"] == "tool"][-1]["content"]
        assert "already has this text" in told and first["id"] in told
    contents = sorted(m["content"] for m in (await ok(app, "memories.list"))["memories"])
    assert contents == ["Deploys happen on Fridays", "Deploys happen on Mondays"]
