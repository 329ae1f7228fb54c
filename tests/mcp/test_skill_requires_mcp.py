"""A Skill that declares `requires.mcp_servers` (SPEC S7.4): loading it connects the server
through the MCP capability and activates its tools, so the model calls them at the next step of
the same turn without tool_search or mcp_prepare."""

from __future__ import annotations

from typing import Any

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, add_provider, ok, send
from tests.mcp.test_walkthrough import TOOL, approve_always, offered, tool_outputs
from tests.skills.helpers import skill_md, write_skill


async def test_loading_a_skill_prepares_its_required_mcp_server_for_the_same_turn(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    extra = "requires:\n  mcp_servers: [test_stdio_mcp]\n"
    write_skill(paths.skills_dir / "user", "greeter", skill_md("greeter", "Greets Cash.", extra))
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "skill_load", "arguments": {"name": "greeter"}}]},
        {"tool_calls": [{"name": TOOL, "arguments": {}}]},
        {"text": "Greeted."},
    )
    turn = await send(app, chat, "Use the greeter skill", pid)
    await approve_always(app, events, turn)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    first, second, third = fake_llm.model_requests()[-3:]
    assert TOOL not in offered(first)
    assert "test_stdio_mcp: connected" in tool_outputs(second)[0]
    assert TOOL in offered(second)  # activated by the load, in the same turn
    assert tool_outputs(third)[-1] == "Hello, Cash"
