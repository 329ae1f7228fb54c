"""Issue 40 item 13 over the served REST API: one lowercase rule for new MCP server names
(stored mixed-case names keep working), display names of 1-100 characters, a name conflict is
409, and in a tool-name collision the name that needed no change keeps it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.api.conftest import AppMaker, make_app, paths, secrets, workspace  # noqa: F401
from tests.mcp.helpers import ROUGH
from tests.server.conftest import serve_built


def _stdio(name: str, *extra: str, **fields: Any) -> dict[str, Any]:
    args = [str(ROUGH), *extra]
    return {"name": name, "transport": "stdio", "command": sys.executable, "args": args, **fields}


async def test_server_names_display_names_conflicts_and_tool_name_collisions(
    make_app: AppMaker,  # noqa: F811
    paths: Any,  # noqa: F811
    static_dir: Path,
) -> None:
    app, _ = await make_app()
    # An entry stored before the lowercase rule (the catalog file is the user's own data).
    catalog = paths.data_dir / "mcp" / "servers.json"
    stored_entry = {"transport": "stdio", "command": sys.executable, "args": [str(ROUGH)]}
    catalog.parent.mkdir(parents=True, exist_ok=True)
    catalog.write_text(json.dumps({"version": 1, "servers": {"Legacy": stored_entry}}))
    async with serve_built(static_dir, app) as served, served.client() as client:
        h = served.bearer

        async def create(body: dict[str, Any]) -> Any:
            return await client.post("/api/mcp/servers", json=body, headers=h)

        mixed = await create(_stdio("MyServer"))
        assert mixed.status_code in (400, 422) and "lowercase" in mixed.json()["error"]["message"]
        assert (await create(_stdio("docs", display_name="D" * 101))).status_code in (400, 422)
        made = await create(_stdio("docs", display_name="  Docs  "))
        assert made.status_code == 201, made.text
        assert made.json()["data"]["display_name"] == "Docs"
        assert (await create(_stdio("docs"))).status_code == 409
        taken = await create(_stdio("legacy"))  # the stored `Legacy`, compared without case
        assert taken.status_code == 409 and "Legacy" in taken.json()["error"]["message"]
        # The stored mixed-case name still works: listed, edited, connected.
        listed = (await client.get("/api/mcp/servers", headers=h)).json()["data"]["servers"]
        assert "Legacy" in [s["name"] for s in listed]
        edited = await client.put("/api/mcp/servers/Legacy", json=_stdio("Legacy", "--dotted"), headers=h)
        assert edited.status_code == 200, edited.text
        confirmed = await client.post("/api/invoke/mcp.servers.confirm", json={"name": "Legacy"}, headers=h)
        assert confirmed.json()["ok"], confirmed.text
        connected = await client.post("/api/mcp/servers/Legacy/connect", headers=h)
        assert connected.status_code == 200, connected.text
        tools = (await client.get("/api/mcp/servers/Legacy/tools", headers=h)).json()["data"]["tools"]
        exposed = {t["name"]: t["exposed_name"] for t in tools}
        assert exposed["get_x"] == "mcp_Legacy_get_x"  # the valid name keeps its name
        assert exposed["get.x"].startswith("mcp_Legacy_get_x_")  # the derived one: a hash suffix
