"""Issue 40 item 16 over the served API: the masker hides a bearer token a careless MCP server
echoes, and leaves ordinary text around the word "bearer" as it was ("jwt-bearer grant", "a
bearer token", "the Bearer of the account" — it used to become "jwt-bearer ********")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.api.conftest import AppMaker, make_app, paths, secrets, workspace  # noqa: F401
from tests.mcp.helpers import ROUGH, http_server
from tests.server.conftest import serve_built

TOKEN = "abc.def-123"


async def test_a_tool_result_keeps_prose_and_loses_the_token(
    make_app: AppMaker,  # noqa: F811
    static_dir: Path,
) -> None:
    app, _ = await make_app()
    with http_server(ROUGH, "--http") as url:
        async with serve_built(static_dir, app) as served, served.client() as client:
            h = served.bearer

            async def invoke(route: str, body: dict[str, Any]) -> dict[str, Any]:
                response = await client.post(f"/api/invoke/{route}", json=body, headers=h)
                envelope: dict[str, Any] = response.json()
                assert envelope["ok"], envelope
                data: dict[str, Any] = envelope["data"]
                return data

            headers = {"Authorization": f"Bearer {TOKEN}"}
            server = {"name": "rough", "transport": "http", "url": url, "headers": headers}
            await invoke("mcp.servers.create", {**server, "allow_plain_http_auth": True})
            prose = await invoke("mcp.tools.call", {"name": "rough", "tool": "prose"})
            assert prose["text"] == "the jwt-bearer grant needs a bearer token from the Bearer of the account"
            echoed = await invoke("mcp.tools.call", {"name": "rough", "tool": "echo_header"})
            assert TOKEN not in echoed["text"] and "********" in echoed["text"]
