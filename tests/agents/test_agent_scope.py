"""Issue 38 acceptance: two agents with disjoint Skills and MCP servers. In agent A's chat,
skill_search, tool_search, mcp_prepare, skill_load, @-selections and the system prompt never
show B's (read from the scripted LLM's request log); switching the chat's agent before its first
message switches all of it; after it, the agent cannot change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.api.app import CashCodeApp
from app.settings.paths import AppPaths
from tests.api.conftest import VALID_KEY, AppMaker, Recorder, add_provider, err, ok, send

A_SKILL, B_SKILL = "alpha-notes", "beta-travel"
A_SERVER, B_SERVER = "test_stdio_mcp", "test_http_mcp"
PERSONA_A, PERSONA_B = "You are PERSONA-ALPHA, a note keeper.", "You are PERSONA-BETA, a travel planner."


def _skill(root: Path, name: str, description: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: '{description}'\nversion: '1.0'\n---\n# {name}\nBody of {name}.\n",
        encoding="utf-8",
    )


@pytest.fixture
def home(tmp_path: Path, paths: AppPaths) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    root = paths.data_dir / "skills" / "user"
    # Both descriptions match the same queries, so only the agent's scope can tell them apart.
    _skill(root, A_SKILL, "Shared planning helper: notes, trips and lists.")
    _skill(root, B_SKILL, "Shared planning helper: trips, notes and lists.")
    return h


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


def _tool_results(request: Any) -> list[str]:
    return [m["content"] for m in request.body["messages"] if m["role"] == "tool"]


def _offered(request: Any) -> str:
    """What the app itself put in a request: the system prompt, the tool specs and the tool
    results (not the model's own tool calls, which name what the script asked for)."""
    messages = request.body["messages"]
    parts = [messages[0]["content"], json.dumps(request.body.get("tools", []))]
    parts += [m["content"] for m in messages if m["role"] in ("tool", "user")]
    return "\n".join(parts)


async def _agents(app: CashCodeApp) -> tuple[str, str]:
    a = await ok(
        app,
        "agents.add",
        {
            "spec": {
                "name": "Alpha",
                "emoji": "📝",
                "persona": PERSONA_A,
                "skills": [A_SKILL],
                "mcp_servers": [A_SERVER],
            }
        },
    )
    b = await ok(
        app,
        "agents.add",
        {
            "spec": {
                "name": "Beta",
                "emoji": "✈️",
                "persona": PERSONA_B,
                "skills": [B_SKILL],
                "mcp_servers": [B_SERVER],
            }
        },
    )
    return a["id"], b["id"]


async def _run(events: Recorder, turn_id: str) -> None:
    end = await events.turn_end(turn_id, timeout_s=30)
    assert end.type == "turn_done", end


async def test_agent_a_never_sees_agent_bs_skills_servers_or_persona(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()  # as desktop and serve: the prompt lists the Skill catalog
    pid = await add_provider(app, fake_llm, "chat_completions")
    a_id, _ = await _agents(app)
    chat = await ok(app, "chats.create", {"agent_id": a_id})
    assert chat["agent_id"] == a_id
    fake_llm.script(
        _call("skill_search", query="planning helper trips notes lists"),
        _call("tool_search", query="built-in test server"),
        _call("mcp_prepare", server=B_SERVER),
        _call("mcp_prepare", server="never_configured"),
        _call("skill_load", name=B_SKILL),
        _call("skill_load", name="never-installed"),
        {"text": "done"},
    )
    mention = {"kind": "skill", "name": A_SKILL, "label": A_SKILL}
    ref = await ok(
        app,
        "chat.send",
        {
            "chat_id": chat["id"],
            "text": "plan my week",
            "model": {"provider_id": pid, "model": "fake-model"},
            "mentions": [mention],
        },
    )
    await _run(events, ref["turn_id"])
    reqs = fake_llm.model_requests()[-7:]
    system = reqs[0].body["messages"][0]["content"]
    assert system.startswith(PERSONA_A)
    assert f"- {A_SKILL}: Shared planning helper" in system  # the Skill list and the @-selection
    assert f"- {A_SERVER}" in system  # the prompt's server list
    results = _tool_results(reqs[-1])
    assert A_SKILL in results[0] and B_SKILL not in results[0]  # skill_search
    assert A_SERVER in results[1] and B_SERVER not in results[1] and "test_sse_mcp" not in results[1]
    # mcp_prepare and skill_load answer B's names exactly as names that never existed.
    assert results[2] == results[3].replace("never_configured", B_SERVER)
    assert results[4] == results[5].replace("never-installed", B_SKILL)
    for request in reqs:
        offered = _offered(request)
        for other in ("PERSONA-BETA", "test_sse_mcp"):
            assert other not in offered
        assert B_SKILL not in offered.replace(f"'{B_SKILL}'", "")  # only echoed in the refusal
        assert B_SERVER not in offered.replace(f"'{B_SERVER}'", "")


async def test_switching_the_agent_before_the_first_message_switches_everything(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()
    pid = await add_provider(app, fake_llm, "chat_completions")
    a_id, b_id = await _agents(app)
    for lazy in (False, True):  # a stored new chat, and one kept in memory until its first turn
        chat = await ok(app, "chats.create", {"agent_id": a_id, "lazy": lazy})
        await ok(app, "agents.set_chat_agent", {"chat_id": chat["id"], "agent_id": b_id})
        fake_llm.script(_call("skill_search", query="planning helper"), {"text": "ok"})
        await _run(events, await send(app, chat["id"], "hello", pid))
        first, second = fake_llm.model_requests()[-2:]
        system = first.body["messages"][0]["content"]
        assert system.startswith(PERSONA_B) and "PERSONA-ALPHA" not in system
        assert f"- {B_SKILL}:" in system and A_SKILL not in system
        assert f"- {B_SERVER}" in system and A_SERVER not in system
        found = _tool_results(second)[0]
        assert B_SKILL in found and A_SKILL not in found
        # The chat now belongs to B for good: it says so, and the agent cannot change any more.
        detail = await ok(app, "chats.get", {"chat_id": chat["id"]})
        assert detail["chat"]["agent_id"] == b_id
        listed = await ok(app, "chats.list", {})
        assert next(c for c in listed["chats"] if c["id"] == chat["id"])["agent_id"] == b_id
        error = await err(app, "agents.set_chat_agent", {"chat_id": chat["id"], "agent_id": a_id})
        assert error["key"] == "agent.chat_started"
    assert (await ok(app, "agents.list"))["last_used"] == b_id


async def test_the_default_agent_and_old_chats_keep_todays_behaviour(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    await app.start_background()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await _agents(app)
    chat = await ok(app, "chats.create", {})  # the seed's clients name no agent
    assert chat["agent_id"] == "default"
    fake_llm.script({"text": "ok"})
    await _run(events, await send(app, chat["id"], "hello", pid))
    system = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    assert A_SKILL in system and B_SKILL in system and A_SERVER in system and B_SERVER in system
    assert "PERSONA-" not in system
    error = await err(app, "chats.create", {"agent_id": "nope"})
    assert error["code"] == "not_found"


async def test_an_agents_tool_set_cuts_the_offered_tools(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, events = await make_app(env={"HOME": str(home)})
    full = {"name": "Full", "kind": "chat_completions", "base_url": fake_llm.openai_base_url}
    pid = (await ok(app, "providers.save", {**full, "api_key": VALID_KEY, "lean_tools": False}))["id"]
    lean = (
        await ok(app, "providers.save", {**full, "name": "Lean", "api_key": VALID_KEY, "lean_tools": True})
    )["id"]
    reader = await ok(app, "agents.add", {"spec": {"name": "Reader", "tools": ["read_file", "skill_search"]}})
    for provider in (pid, lean):  # every tool up front, and the lean set that finds the rest
        chat = await ok(app, "chats.create", {"agent_id": reader["id"]})
        fake_llm.script(_call("write_file", path="x.txt", content="no"), {"text": "ok"})
        await _run(events, await send(app, chat["id"], "hello", provider))
        first, second = fake_llm.model_requests()[-2:]
        offered = {t["function"]["name"] for t in first.body["tools"]}
        assert "read_file" in offered
        assert not offered & {"write_file", "run_command", "skill_load", "knowledge_search", "save_memory"}
        assert "write_file" in _tool_results(second)[0] and not (Path.cwd() / "x.txt").exists()
    assert "skill_search" in offered_without_lean(fake_llm)


def offered_without_lean(fake_llm: Any) -> set[str]:
    first = fake_llm.model_requests()[-4]
    return {t["function"]["name"] for t in first.body["tools"]}


async def test_knowledge_search_and_at_selection_follow_the_agents_bases(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    for name in ("alpha-kb", "beta-kb"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}.md").write_text(f"# Lighthouse\nThe lighthouse keeper of {name} logs ships.\n")
        await ok(app, "knowledge.add", {"path": str(folder), "name": name})
    keeper = await ok(app, "agents.add", {"spec": {"name": "Keeper", "knowledge_bases": ["alpha-kb"]}})
    chat = await ok(app, "chats.create", {"agent_id": keeper["id"]})
    fake_llm.script(
        _call("knowledge_search", query="lighthouse keeper ships"),
        _call("knowledge_search", query="lighthouse", kb="beta-kb"),
        _call("knowledge_search", query="lighthouse", kb="gamma-kb"),
        {"text": "ok"},
    )
    mentions = [{"kind": "knowledge", "name": n, "label": n} for n in ("beta-kb", "gamma-kb")]
    send = {"chat_id": chat["id"], "text": "lighthouse", "model": {"provider_id": pid, "model": "fake-model"}}
    await _run(events, (await ok(app, "chat.send", {**send, "mentions": mentions}))["turn_id"])
    last = fake_llm.model_requests()[-1]
    found, other, unknown = _tool_results(last)
    assert "alpha-kb" in found and "beta-kb" not in found
    assert other == unknown.replace("gamma-kb", "beta-kb")  # as a base that does not exist
    assert "alpha-kb" in other
    context = [m["content"] for m in last.body["messages"] if m["role"] == "user"][0]
    assert "beta-kb logs ships" not in context  # the @-selected base of another agent adds nothing
    assert context.count("does not exist") == 2


async def test_an_agent_with_its_own_memory_never_sees_or_writes_the_shared_one(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events = await make_app()
    full = {"name": "Full", "kind": "chat_completions", "base_url": fake_llm.openai_base_url}
    pid = (await ok(app, "providers.save", {**full, "api_key": VALID_KEY, "lean_tools": False}))["id"]
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    (paths.data_dir / "MEMORY.md").write_text("- SHARED-FACT\n", encoding="utf-8")
    loner = await ok(app, "agents.add", {"spec": {"name": "Loner", "memory": "own"}})
    own = paths.data_dir / "agents" / loner["id"] / "MEMORY.md"
    own.parent.mkdir(parents=True)
    own.write_text("- OWN-FACT\n", encoding="utf-8")
    for agent, seen, unseen in ((loner["id"], "OWN-FACT", "SHARED-FACT"), (None, "SHARED-FACT", "OWN-FACT")):
        chat = await ok(app, "chats.create", {"agent_id": agent} if agent else {})
        fake_llm.script({"text": "ok"})
        await _run(events, await send(app, chat["id"], "what do you remember?", pid))
        request = fake_llm.model_requests()[-1].body
        system = request["messages"][0]["content"]
        assert seen in system and unseen not in system
        offered = {t["function"]["name"] for t in request["tools"]}
        assert "save_memory" in offered  # over its own memory (tests/agents/test_agent_own_memory.py)


async def test_a_chat_kept_in_memory_whose_agent_was_removed_is_refused_not_widened(
    make_app: AppMaker, fake_llm: Any, home: Path
) -> None:
    app, _ = await make_app(env={"HOME": str(home)})
    pid = await add_provider(app, fake_llm, "chat_completions")
    a_id, _ = await _agents(app)
    chat = await ok(app, "chats.create", {"agent_id": a_id, "lazy": True})
    await ok(app, "agents.remove", {"agent_id": a_id})
    send = {"chat_id": chat["id"], "text": "hi", "model": {"provider_id": pid, "model": "fake-model"}}
    for _ in range(2):  # and again: it never falls back to the default agent's wider rights
        error = await err(app, "chat.send", send)
        assert error["key"] == "agent.not_found"
    assert fake_llm.model_requests() == []
