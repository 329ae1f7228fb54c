"""Issue 38: an agent whose memory scope is "own" has a memory of its own, fully.

Its turns get the same memory tools as the shared memory, writing `agents/<id>/MEMORY.md` (with
versions) and its own explicit memories; its next chat sees what it saved (the scripted LLM's
request log) and another agent does not; Dream never distils its chats into the shared
MEMORY.md."""

from __future__ import annotations

from typing import Any

from app.api.app import CashCodeApp
from app.contracts.events import ApprovalRequired
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, Recorder, add_provider, err, ok, send
from tests.memory.helpers import approval

FACT = "The user's boat is called LONER-BOAT"


async def _approved_turn(
    app: CashCodeApp, events: Recorder, chat_id: str, text: str, pid: str
) -> ApprovalRequired:
    """A turn whose one write the user allows; what the approval said."""
    turn = await send(app, chat_id, text, pid)
    asked = await approval(events, turn)
    await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "once"})
    assert (await events.turn_end(turn, timeout_s=30)).type == "turn_done"
    return asked


async def _plain_turn(app: CashCodeApp, events: Recorder, fake_llm: Any, chat_id: str, pid: str) -> str:
    """A turn answered with text; the system prompt the model got."""
    fake_llm.script({"text": "ok"})
    turn = await send(app, chat_id, "what do you remember?", pid)
    assert (await events.turn_end(turn, timeout_s=30)).type == "turn_done"
    return str(fake_llm.model_requests()[-1].body["messages"][0]["content"])


async def _with_loner(make_app: AppMaker, fake_llm: Any) -> tuple[CashCodeApp, Recorder, str, str]:
    """An app with a provider, a fact in the shared MEMORY.md and "Loner", an agent with its own
    memory: the app, its events, the provider's id and Loner's id."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "memory.save", {"text": "- SHARED-FACT"})
    loner: str = (await ok(app, "agents.add", {"spec": {"name": "Loner", "memory": "own"}}))["id"]
    return app, events, pid, loner


async def test_an_own_memory_agent_saves_to_its_own_file_sees_it_next_time_and_can_restore(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events, pid, loner = await _with_loner(make_app, fake_llm)
    other = (await ok(app, "agents.add", {"spec": {"name": "Other"}}))["id"]
    own_file = paths.data_dir / "agents" / loner / "MEMORY.md"
    shared_file = paths.data_dir / "MEMORY.md"

    chat = await ok(app, "chats.create", {"agent_id": loner})
    fake_llm.script(
        {"tool_calls": [{"name": "save_memory", "arguments": {"fact": FACT}}]}, {"text": "Saved."}
    )
    asked = await _approved_turn(app, events, chat["id"], "remember my boat's name", pid)
    # The approval names the agent's own memory, not the shared MEMORY.md.
    assert asked.summary is not None and asked.summary.code == "memory_file_add_own"
    assert asked.title == "Save to this agent's own memory"
    assert own_file.read_text(encoding="utf-8") == f"- {FACT}\n"
    assert shared_file.read_text(encoding="utf-8") == "- SHARED-FACT\n"

    # Its explicit memories are its own rows too.
    fake_llm.script(
        {"tool_calls": [{"name": "remember_memory", "arguments": {"content": "LONER-ROW", "tags": []}}]},
        {"text": "Remembered."},
    )
    await _approved_turn(app, events, chat["id"], "remember LONER-ROW", pid)
    mine = await ok(app, "memories.list", {"agent_id": loner})
    assert [m["content"] for m in mine["memories"]] == ["LONER-ROW"] and mine["total"] == 1
    assert (await ok(app, "memories.list"))["total"] == 0

    # The agent's next chat has it in its prompt; the default agent and another agent do not.
    seen = await _plain_turn(
        app, events, fake_llm, (await ok(app, "chats.create", {"agent_id": loner}))["id"], pid
    )
    assert FACT in seen and "SHARED-FACT" not in seen
    for agent in (None, other):
        fresh = await ok(app, "chats.create", {"agent_id": agent} if agent else {})
        system = await _plain_turn(app, events, fake_llm, fresh["id"], pid)
        assert "SHARED-FACT" in system and FACT not in system

    # Versions of its file: listed (not among the shared ones) and restorable.
    doc = await ok(app, "memory.get", {"agent_id": loner})
    assert doc["text"] == f"- {FACT}\n" and doc["path"] == str(own_file)
    await ok(
        app,
        "memory.save",
        {"agent_id": loner, "text": f"- {FACT}\n- edited by hand", "base_hash": doc["hash"]},
    )
    versions = (await ok(app, "memory.versions", {"agent_id": loner}))["versions"]
    assert [v["author"] for v in versions] == ["user", "save_memory"]
    shared_versions = (await ok(app, "memory.versions"))["versions"]
    assert [v["author"] for v in shared_versions] == ["user"]
    first = versions[-1]["id"]
    assert (await ok(app, "memory.version", {"agent_id": loner, "version_id": first}))[
        "text"
    ] == f"- {FACT}\n"
    # Another memory's version reads as one that does not exist.
    refused = await err(app, "memory.version", {"version_id": first})
    assert refused["key"] == "memory.file_version_not_found"
    restored = await ok(app, "memory.revert", {"agent_id": loner, "version_id": first})
    assert restored["text"] == f"- {FACT}\n" == own_file.read_text(encoding="utf-8")
    assert shared_file.read_text(encoding="utf-8") == "- SHARED-FACT\n"
    # Where its line came from: this agent's chat.
    why = await ok(app, "memory.why", {"agent_id": loner, "text": "LONER-BOAT"})
    assert why["lines"][0]["sources"][0]["chat_id"] == chat["id"]
    assert (await ok(app, "memory.why", {"text": "LONER-BOAT"}))["lines"] == []

    # An unknown agent: a clear error, nothing written.
    missing = await err(app, "memory.save", {"agent_id": "nope", "text": "- x"})
    assert missing["key"] == "agent.not_found"
    assert not (paths.data_dir / "agents" / "nope").exists()


async def test_dream_leaves_the_shared_memory_untouched_for_an_own_memory_agents_chats(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events, pid, loner = await _with_loner(make_app, fake_llm)
    chat = (await ok(app, "chats.create", {"agent_id": loner}))["id"]
    fake_llm.script({"text": "Noted."})
    turn = await send(app, chat, "My secret island is PRIVATE-ISLAND.", pid)
    assert (await events.turn_end(turn, timeout_s=30)).type == "turn_done"

    before = len(fake_llm.requests)
    result = await ok(app, "dream.run", {"model": {"provider_id": pid, "model": "fake-model"}})
    assert result["status"] == "nothing_new" and len(fake_llm.requests) == before
    assert (paths.data_dir / "MEMORY.md").read_text(encoding="utf-8") == "- SHARED-FACT\n"

    # With a default chat as well, Dream reads only that one.
    shared_chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "Nice."})
    turn = await send(app, shared_chat, "I like green tea.", pid)
    assert (await events.turn_end(turn, timeout_s=30)).type == "turn_done"
    fake_llm.script({"text": "ADD: green tea"}, {"text": "- SHARED-FACT\n- Likes green tea"})
    before = len(fake_llm.model_requests())
    result = await ok(app, "dream.run", {"model": {"provider_id": pid, "model": "fake-model"}})
    assert result["status"] == "applied" and result["chats"] == [shared_chat]
    for request in fake_llm.model_requests()[before:]:
        assert "PRIVATE-ISLAND" not in str(request.body["messages"])
    shared = (paths.data_dir / "MEMORY.md").read_text(encoding="utf-8")
    assert shared == "- SHARED-FACT\n- Likes green tea\n"

    # Switched back to the shared memory later: the earlier private history is still never read.
    spec = (await ok(app, "agents.get", {"agent_id": loner}))["spec"]
    await ok(app, "agents.edit", {"agent_id": loner, "spec": {**spec, "memory": "shared"}})
    before = len(fake_llm.requests)
    assert (await ok(app, "dream.run", {"model": {"provider_id": pid, "model": "fake-model"}}))[
        "status"
    ] == "nothing_new"
    assert len(fake_llm.requests) == before
