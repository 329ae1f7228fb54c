"""Elicitation: the server's form reaches the UI as an event (defaults applied), the answer
goes back; without a UI (the CLI) requests are declined."""

from __future__ import annotations

import asyncio
from typing import Any

from app.mcp.events import McpElicitation, McpToolProgress
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.mcp.helpers import add_rough


async def test_a_form_is_shown_answered_and_validated(make_app: AppMaker) -> None:
    app, events = await make_app()
    await app.start_background()  # a long-lived surface (desktop, serve) has a UI
    await add_rough(app)
    call = asyncio.create_task(app.invoke("mcp.tools.call", {"name": "rough", "tool": "ask_person"}))
    await events.until(lambda: bool(events.of(McpElicitation)), 60)
    request = events.of(McpElicitation)[0]
    assert request.message == "Who should I greet?" and request.server == "rough"
    assert request.defaults == {"age": 30, "happy": True}
    assert set(request.requested_schema["properties"]) == {"name", "age", "happy"}
    bad = await err(
        app, "mcp.elicitation.answer", {"id": request.id, "action": "accept", "content": {"age": 5}}
    )
    assert bad["code"] == "invalid" and "name" in bad["message"]
    await ok(
        app, "mcp.elicitation.answer", {"id": request.id, "action": "accept", "content": {"name": "Ann"}}
    )
    result = await asyncio.wait_for(call, 60)
    assert result["data"]["text"] == "accepted Ann 30 True"
    assert any(e.closed and e.id == request.id for e in events.of(McpElicitation))
    assert (await err(app, "mcp.elicitation.answer", {"id": request.id, "action": "decline"}))[
        "code"
    ] == "not_found"


async def test_without_a_ui_the_request_is_declined(make_app: AppMaker) -> None:
    app, events = await make_app()
    await add_rough(app)
    result = await ok(app, "mcp.tools.call", {"name": "rough", "tool": "ask_person"})
    assert result["text"] == "decline" and not events.of(McpElicitation)


async def test_url_mode_is_declined_with_a_reason_on_the_tool_card(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    await app.start_background()  # even with a UI: CashCode never opens a page a server chose
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    await add_rough(app)
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "rough", "tools": ["ask_url"]}}]},
        {"tool_calls": [{"name": "mcp_rough_ask_url", "arguments": {}}]},
        {"text": "ok"},
    )
    turn = await send(app, chat, "upgrade", pid)
    assert (await events.turn_end(turn, 60)).type == "turn_done"
    notes = [e for e in events.of(McpToolProgress) if e.turn_id == turn and e.kind == "log"]
    assert len(notes) == 1 and notes[0].tool == "mcp_rough_ask_url" and notes[0].chat_id == chat
    assert "pay.example.com" in notes[0].message and "declined" in notes[0].message
    assert "checkout" not in notes[0].message  # only the host is shown
    assert not events.of(McpElicitation)
    last = fake_llm.model_requests()[-1]
    assert [m["content"] for m in last.body["messages"] if m["role"] == "tool"][-1] == "decline"
