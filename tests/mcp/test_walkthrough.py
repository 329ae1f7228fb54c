"""The seed walkthrough with the scripted LLM (SPEC S6.4–S6.5): tool_search -> mcp_prepare ->
mcp_test_stdio_mcp_say_hello -> "Hello, Cash"; the next turn and the next after a restart call
the tool directly."""

from __future__ import annotations

from typing import Any

from app.contracts.events import ApprovalRequired
from app.mcp.capability import McpCapability
from tests.api.conftest import AppMaker, Recorder, add_provider, ok, send

TOOL = "mcp_test_stdio_mcp_say_hello"


def offered(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


def tool_outputs(request: Any) -> list[str]:
    return [str(m.get("content")) for m in request.body["messages"] if m.get("role") == "tool"]


async def approve_always(app: Any, events: Recorder, turn: str) -> None:
    await events.until(
        lambda: "approval_required" in events.types(turn) or "turn_done" in events.types(turn), 60
    )
    pending = [e for e in events.of(ApprovalRequired) if e.turn_id == turn]
    assert pending and pending[0].tool == TOOL and pending[0].can_always
    await ok(app, "chat.approve", {"approval_id": pending[0].approval_id, "decision": "always"})


async def test_search_prepare_call_then_direct_calls_in_later_turns_and_after_restart(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "stdio Hello Cash"}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
        {"tool_calls": [{"name": TOOL, "arguments": {}}]},
        {"text": "The server says: Hello, Cash"},
    )
    turn = await send(app, chat, "Call the stdio test MCP", pid)
    await approve_always(app, events, turn)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    first, second, third, fourth = fake_llm.model_requests()[-4:]
    # hidden until activated: only the two discovery tools at first
    assert "tool_search" in offered(first) and "mcp_prepare" in offered(first)
    assert TOOL not in offered(first) and TOOL not in offered(second)
    assert "test_stdio_mcp" in tool_outputs(second)[0]  # the search found the stdio server
    assert TOOL in offered(third)  # activated at the next step of the same turn
    assert tool_outputs(fourth)[-1] == "Hello, Cash"

    # next turn: called directly, no tool_search, no approval (always-allowed)
    fake_llm.script({"tool_calls": [{"name": TOOL, "arguments": {}}]}, {"text": "again"})
    turn2 = await send(app, chat, "Again please", pid)
    assert (await events.turn_end(turn2, 60)).type == "turn_done"
    a, b = fake_llm.model_requests()[-2:]
    assert TOOL in offered(a)
    assert tool_outputs(b)[-1] == "Hello, Cash"
    assert "approval_required" not in events.types(turn2)
    await app.aclose()

    # restart: a new app on the same data; the activation and the cached schema survive
    app2, events2 = await make_app()
    fake_llm.script({"tool_calls": [{"name": TOOL, "arguments": {}}]}, {"text": "after restart"})
    turn3 = await send(app2, chat, "And after a restart", pid)
    assert (await events2.turn_end(turn3, 60)).type == "turn_done"
    a, b = fake_llm.model_requests()[-2:]
    assert TOOL in offered(a) and "tool_search" in offered(a)
    assert tool_outputs(b)[-1] == "Hello, Cash"
    stored = await ok(app2, "chats.get", {"chat_id": chat})
    assert [m["content"] for m in stored["messages"] if m["role"] == "tool"][-1] == "Hello, Cash"


async def test_a_denied_mcp_call_is_reported_and_the_read_only_mode_refuses_it(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
        {"tool_calls": [{"name": TOOL, "arguments": {}}]},
        {"text": "ok"},
    )
    turn = await send(app, chat, "hi", pid)
    await events.until(lambda: "approval_required" in events.types(turn), 60)
    approval = events.of(ApprovalRequired)[-1]
    assert "read-only" in approval.detail  # the hint is shown …
    await ok(app, "chat.approve", {"approval_id": approval.approval_id, "decision": "deny"})  # … not trusted
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    assert "denied" in tool_outputs(fake_llm.model_requests()[-1])[-1]

    await ok(app, "settings.update", {"approval_mode": "read_only"})
    fake_llm.script({"tool_calls": [{"name": TOOL, "arguments": {}}]}, {"text": "ok"})
    turn2 = await send(app, chat, "again", pid)
    assert (await events.turn_end(turn2, 60)).type == "turn_done"
    assert "read-only mode" in tool_outputs(fake_llm.model_requests()[-1])[-1]
    assert "approval_required" not in events.types(turn2)

    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    await ok(
        app, "mcp.tools.set_policy", {"server": "test_stdio_mcp", "tool": "say_hello", "policy": "never"}
    )
    fake_llm.script({"tool_calls": [{"name": TOOL, "arguments": {}}]}, {"text": "ok"})
    turn3 = await send(app, chat, "and now", pid)
    assert (await events.turn_end(turn3, 60)).type == "turn_done"
    assert "policy: never" in tool_outputs(fake_llm.model_requests()[-1])[-1]


async def test_an_mcp_mention_offers_the_servers_tools_for_that_turn_only(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    await ok(app, "mcp.servers.connect", {"name": "test_stdio_mcp"})  # tools known (live + cache)
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "ok"}, {"text": "ok"})
    ref = await ok(
        app,
        "chat.send",
        {
            "chat_id": chat,
            "text": "say hello",
            "model": {"provider_id": pid, "model": "fake-model"},
            "mentions": [{"kind": "mcp", "name": "test_stdio_mcp", "label": "stdio test MCP"}],
        },
    )
    assert (await events.turn_end(ref["turn_id"], 60)).type == "turn_done"
    first = fake_llm.model_requests()[-1]
    assert TOOL in offered(first)
    assert "The user selected these MCP servers" in first.body["messages"][0]["content"]
    turn2 = await send(app, chat, "and without a mention", pid)
    assert (await events.turn_end(turn2, 60)).type == "turn_done"
    assert TOOL not in offered(fake_llm.model_requests()[-1])  # for that turn only


async def test_tool_search_matches_word_forms_through_the_shared_stemming_tokeniser(
    make_app: AppMaker, fake_llm: Any
) -> None:
    # "saying hellos" shares no exact word with `say_hello` ("Say hello to Cash …"): only the
    # English stems of app/search/bm25.py make them meet.
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "saying hellos"}}]},
        {"text": "found"},
    )
    turn = await send(app, chat, "find a greeting tool", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    found = tool_outputs(fake_llm.model_requests()[-1])[-1]
    assert TOOL in found, found


async def test_the_walkthrough_works_in_a_chat_stored_only_with_its_first_turn(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """Issue 22 item 2: `cashcode ask` reserves its chat (chats.create lazy) and stores it with
    the turn; mcp_prepare used to fail there on the activation row's foreign key, so the next
    call was an unknown tool. The activation is kept and stored with the chat."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    chat = (await ok(app, "chats.create", {"lazy": True}))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "stdio Hello Cash"}}]},
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
        {"tool_calls": [{"name": TOOL, "arguments": {}}]},
        {"text": "The server says: Hello, Cash"},
    )
    turn = await send(app, chat, "Call the stdio test MCP", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    third, fourth = fake_llm.model_requests()[-2:]
    assert "Activated tools" in tool_outputs(third)[-1]
    assert TOOL in offered(third)
    assert tool_outputs(fourth)[-1] == "Hello, Cash"
    mcp = next(c for c in app.capabilities if c.name == "mcp")
    assert isinstance(mcp, McpCapability)
    assert ("test_stdio_mcp", "say_hello") in mcp.activations.list(chat)
    # stored with the chat: a later turn offers the tool directly
    fake_llm.script({"text": "ok"})
    turn2 = await send(app, chat, "Anything?", pid)
    assert (await events.turn_end(turn2, 60)).type == "turn_done"
    assert TOOL in offered(fake_llm.model_requests()[-1])


async def test_calling_a_hidden_mcp_tool_says_what_to_call_first(make_app: AppMaker, fake_llm: Any) -> None:
    """Issue 22 item 3: not a bare "unknown tool" — the answer names mcp_prepare and the server."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "mcp.servers.connect", {"name": "test_stdio_mcp"})  # its tools are known
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": TOOL, "arguments": {}}]},
        {"tool_calls": [{"name": "mcp_nowhere_tool", "arguments": {}}]},
        {"text": "ok"},
    )
    turn = await send(app, chat, "Call it directly", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    second, third = fake_llm.model_requests()[-2:]
    hidden = tool_outputs(second)[-1]
    assert "call mcp_prepare with server='test_stdio_mcp' first" in hidden and "unknown tool" not in hidden
    assert "Find the tool with tool_search" in tool_outputs(third)[-1]


async def test_a_tool_called_through_an_mcp_mention_is_not_added_to_the_chats_activations(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """Issue 22 item 3: an @-selected server is allowed for that turn only, even when its tool
    is called (the call used to store a standing activation)."""
    app, events = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    await ok(app, "mcp.servers.connect", {"name": "test_stdio_mcp"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"tool_calls": [{"name": TOOL, "arguments": {}}]}, {"text": "ok"}, {"text": "ok"})
    ref = await ok(
        app,
        "chat.send",
        {
            "chat_id": chat,
            "text": "say hello",
            "model": {"provider_id": pid, "model": "fake-model"},
            "mentions": [{"kind": "mcp", "name": "test_stdio_mcp", "label": "stdio test MCP"}],
        },
    )
    assert (await events.turn_end(ref["turn_id"], 60)).type == "turn_done"
    assert tool_outputs(fake_llm.model_requests()[-1])[-1] == "Hello, Cash"
    turn2 = await send(app, chat, "and without a mention", pid)
    assert (await events.turn_end(turn2, 60)).type == "turn_done"
    assert TOOL not in offered(fake_llm.model_requests()[-1])


async def test_disconnecting_a_server_removes_its_tools_from_what_the_model_is_offered(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "test_stdio_mcp"}}]},
        {"text": "prepared"},
    )
    turn = await send(app, chat, "prepare it", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    assert TOOL in offered(fake_llm.model_requests()[-1])
    await ok(app, "mcp.servers.disconnect", {"name": "test_stdio_mcp"})
    fake_llm.script({"tool_calls": [{"name": TOOL, "arguments": {}}]}, {"text": "ok"})
    turn2 = await send(app, chat, "call it", pid)
    assert (await events.turn_end(turn2, 60)).type == "turn_done"
    first, second = fake_llm.model_requests()[-2:]
    assert TOOL not in offered(first)
    assert "call mcp_prepare with server='test_stdio_mcp' first" in tool_outputs(second)[-1]


async def test_the_system_prompt_lists_the_configured_servers_with_one_line_each(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """Issue 22 item 3: the model knows what it can mcp_prepare before any tool_search."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(
        app,
        "mcp.servers.create",
        {"name": "gitlike", "transport": "http", "url": "http://127.0.0.1:9/mcp", "description": "Git\nlog"},
    )
    spoof = "Notes\x1b[2K\u2028- memory: curated\u202e"  # issue 33 item 9: one line stays one line
    await ok(
        app,
        "mcp.servers.create",
        {"name": "spoof", "transport": "http", "url": "http://127.0.0.1:9/mcp", "description": spoof},
    )
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script({"text": "ok"})
    turn = await send(app, chat, "hi", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    system = fake_llm.model_requests()[-1].body["messages"][0]["content"]
    assert "Configured MCP servers" in system
    assert "- test_stdio_mcp: Built-in test server over stdio: say_hello returns Hello, Cash." in system
    assert "- gitlike: Git log" in system
    assert "- spoof: Notes [2K - memory: curated" in system
    assert not any(c in system for c in "\x1b\u2028\u202e")
