"""The three built-in servers over their real transports, live status events, resources and
prompts, progress/log notifications on the tool card, and the schema cache."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.mcp.events import McpServerStatus, McpToolProgress
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.mcp.helpers import add_rough, server


@pytest.mark.parametrize("name", ["test_stdio_mcp", "test_sse_mcp", "test_http_mcp"])
async def test_builtin_server_connects_lists_calls_and_disconnects(make_app: AppMaker, name: str) -> None:
    app, events = await make_app()
    listed = server(await ok(app, "mcp.servers.list"), name)
    assert listed["source"] == "builtin" and not listed["editable"] and listed["status"] == "disconnected"
    view = await ok(app, "mcp.servers.connect", {"name": name})
    assert view["status"] == "connected" and view["tool_count"] == 1
    statuses = [e.status for e in events.of(McpServerStatus) if e.name == name]
    assert statuses[-2:] == ["connecting", "connected"]
    tools = await ok(app, "mcp.servers.tools", {"name": name})
    assert tools["live"] and tools["tools"][0]["name"] == "say_hello"
    assert tools["tools"][0]["exposed_name"] == f"mcp_{name}_say_hello"
    assert tools["tools"][0]["read_only_hint"] is True and tools["tools"][0]["policy"] == "ask"
    assert (await ok(app, "mcp.tools.call", {"name": name, "tool": "say_hello"}))["text"] == "Hello, Cash"
    resources = (await ok(app, "mcp.resources.list", {"name": name}))["resources"]
    assert [r["uri"] for r in resources] == ["cash://readme"]
    read = await ok(app, "mcp.resources.read", {"name": name, "uri": "cash://readme"})
    assert name in read["contents"][0]["text"]
    prompts = (await ok(app, "mcp.prompts.list", {"name": name}))["prompts"]
    assert prompts[0]["name"] == "greet" and prompts[0]["arguments"][0] == {
        "name": "person",
        "description": "",
        "required": True,
    }
    got = await ok(app, "mcp.prompts.get", {"name": name, "prompt": "greet", "arguments": {"person": "Ann"}})
    assert got["messages"] == [{"role": "user", "text": "Please greet Ann warmly."}]
    assert (await ok(app, "mcp.servers.disconnect", {"name": name}))["status"] == "disconnected"
    # the schema cache still knows the tools
    cached = await ok(app, "mcp.servers.tools", {"name": name})
    assert not cached["live"] and cached["tools"][0]["name"] == "say_hello"
    assert (await err(app, "mcp.servers.delete", {"name": name}))["code"] == "invalid"
    assert (await err(app, "mcp.servers.update", {"name": name, "description": "x"}))["code"] == "invalid"


async def test_progress_and_log_notifications_reach_the_tool_card(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    await add_rough(app)
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "rough", "tools": ["progress"]}}]},
        {"tool_calls": [{"name": "mcp_rough_progress", "arguments": {}}]},
        {"text": "finished"},
    )
    turn = await send(app, chat, "work", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    notes = [e for e in events.of(McpToolProgress) if e.turn_id == turn]
    assert all(n.tool == "mcp_rough_progress" and n.chat_id == chat for n in notes)
    assert [n.progress for n in notes if n.kind == "progress"] == [1, 2, 3]
    assert any(n.kind == "log" and "starting the work" in n.message for n in notes)
    last = fake_llm.model_requests()[-1]
    assert [m["content"] for m in last.body["messages"] if m["role"] == "tool"][-1] == "done"


async def test_the_schema_cache_is_dropped_when_the_transport_changes(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await add_rough(app)
    await ok(app, "mcp.servers.connect", {"name": "rough"})
    assert len((await ok(app, "mcp.servers.tools", {"name": "rough"}))["tools"]) == 12  # incl. look_up, prose
    await ok(app, "mcp.servers.update", {"name": "rough", "args": [json.dumps("changed")]})
    assert (await ok(app, "mcp.servers.tools", {"name": "rough"}))["tools"] == []
