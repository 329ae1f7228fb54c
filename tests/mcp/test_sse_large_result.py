"""Issue 40 item 14: a result over 1 MiB from a server on SSE. The SDK's SSE client reads at
most 1 MiB per event and drops the connection; the model and the API get
`mcp_result_too_large` with what to do, not "the server stopped", and the server works again
on the next call."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.mcp.helpers import ROUGH, http_server


async def test_an_sse_result_over_the_event_limit_says_what_to_do(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    with http_server(ROUGH, "--sse") as url:
        sse_url = url.removesuffix("/mcp") + "/sse"
        await ok(app, "mcp.servers.create", {"name": "roughsse", "transport": "sse", "url": sse_url})
        fake_llm.script(
            {"tool_calls": [{"name": "mcp_prepare", "arguments": {"server": "roughsse"}}]},
            {"tool_calls": [{"name": "mcp_roughsse_big", "arguments": {}}]},
            {"text": "Too big."},
        )
        chat = await ok(app, "chats.create")
        turn = await send(app, chat["id"], "get the big result", pid)
        assert (await events.turn_end(turn, timeout_s=60)).type == "turn_done"
        last = fake_llm.model_requests()[-1].body["messages"]
        said = str([m for m in last if m["role"] == "tool"][-1]["content"])
        assert "mcp_result_too_large" in said and "Streamable HTTP" in said, said
        assert "Server-sent event exceeded" not in said and "server stopped" not in said
        # Over the API: the same words, marked as not worth retrying as it is.
        error = await err(app, "mcp.tools.call", {"name": "roughsse", "tool": "big"})
        assert error["key"] == "mcp.result_too_large" and error["details"]["retryable"] == "false"
        # The connection comes back for the next (small) call.
        assert (await ok(app, "mcp.tools.call", {"name": "roughsse", "tool": "progress"}))["text"] == "done"
