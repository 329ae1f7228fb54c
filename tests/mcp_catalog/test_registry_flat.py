"""Issue 37 item 5: the Registry client also reads the older flat entry format (the server.json
fields and `_meta` side by side, `next_cursor`), and says plainly that it cannot read the first
preview's format — through the fake registry over HTTP."""

from __future__ import annotations

from pathlib import Path

from app.testing.fake_mcp_registry import FakeMcpRegistry, server_json
from tests.api.conftest import AppMaker, ok
from tests.mcp.helpers import http_server
from tests.mcp_catalog.test_registry import fillers, remote

REPO = Path(__file__).resolve().parents[2]
HTTP_TEST_SERVER = REPO / "resources" / "mcp_servers" / "test_http_mcp" / "server.py"

# The registry's first preview (2025-07): snake case, `version_detail`, `registry_name`.
PREVIEW = {
    "name": "io.example.old/preview-server",
    "description": "from the first preview",
    "version_detail": {"version": "0.1.0", "is_latest": True},
    "packages": [{"registry_name": "npm", "name": "old-server", "version": "0.1.0"}],
}
GONE = server_json("io.example.old/deleted-one", "deleted in the flat shape")


async def test_the_flat_format_lists_pages_plans_and_installs_and_the_preview_one_is_named(
    make_app: AppMaker,
) -> None:
    with http_server(HTTP_TEST_SERVER, "--port") as mcp_url:
        gone = {**GONE["server"], "status": "deleted", "_meta": {}}  # the flat shape's own status
        with FakeMcpRegistry([remote(mcp_url), *fillers(30)]) as registry:
            registry.flat = True
            registry.entries += [PREVIEW, gone]
            app, _ = await make_app(env={"CASHCODE_MCP_REGISTRY_URL": registry.base_url})
            first = await ok(app, "mcp_catalog.registry.search")
            names = [s["name"] for s in first["servers"]]
            assert names[0] == "io.example.remote/hello-http" and len(names) == 30, first["skipped"]
            assert first["next_cursor"] and first["skipped"] == []
            second = await ok(app, "mcp_catalog.registry.search", {"cursor": first["next_cursor"]})
            assert "io.example.old/deleted-one" not in {s["name"] for s in second["servers"]}
            assert len(second["skipped"]) == 1
            assert "(io.example.old/preview-server)" in second["skipped"][0]
            assert "first preview format" in second["skipped"][0]
            assert "cannot read" in second["skipped"][0]

            name = "io.example.remote/hello-http"
            inputs = {"X-Api-Key": ["k-1"]}
            plan = await ok(app, "mcp_catalog.registry.plan", {"name": name, "inputs": inputs})
            assert plan["url"] == mcp_url and plan["headers"] == {"X-Api-Key": "********"}
            assert any("/versions/latest" in r for r in registry.requests)
            install = {"name": name, "inputs": inputs, "confirm": plan["confirm"]}
            assert (await ok(app, "mcp_catalog.registry.install", install))["server"] == "hello-http"
            called = await ok(
                app, "mcp.tools.call", {"name": "hello-http", "tool": "say_hello", "arguments": {}}
            )
            assert called["ok"] and "Hello, Cash" in called["text"]
            await app.aclose()
