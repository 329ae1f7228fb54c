"""Elicitation: the server's form reaches the UI as an event (defaults applied), the answer
goes back; without a UI (the CLI) requests are declined."""

from __future__ import annotations

import asyncio

from app.core.events import McpElicitation
from tests.api.conftest import AppMaker, err, ok
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
    assert set(request.requested_schema["properties"]) == {"name", "age", "happy"}  # type: ignore[arg-type]
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
