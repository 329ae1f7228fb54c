"""Issue 40 item 15 through `tool_search` in an agent turn (scripted LLM, request log): a query
of one-character tokens or a lone CJK character matches nothing instead of everything, and
full-width Latin finds what the same Latin finds."""

from __future__ import annotations

import re
from typing import Any

from tests.api.conftest import AppMaker, add_provider, ok, send


async def test_tool_search_ignores_one_character_tokens_and_reads_full_width_latin(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "a 中 x 1"}}]},
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "ｓｔｄｉｏ"}}]},
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "stdio"}}]},
        {"text": "Searched."},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "find tools", pid)
    assert (await events.turn_end(turn)).type == "turn_done"
    requests = fake_llm.model_requests()

    def last_tool_result(i: int) -> str:
        return str([m for m in requests[i].body["messages"] if m["role"] == "tool"][-1]["content"])

    # One-character tokens match nothing (a local provider's lean tool_search then also lists
    # the built-ins it can activate, decision 309; no MCP server's tool is among them).
    nothing = last_tool_result(1)
    assert re.match(r"No (MCP )?tool matches 'a 中 x 1'\.", nothing) and "test_stdio_mcp" not in nothing
    full_width, latin = last_tool_result(2), last_tool_result(3)
    assert "test_stdio_mcp" in latin and full_width == latin
