"""The Registry plan says what is known of a server's MCP Apps before anything is installed
(issue 37 item 3, decisions 550-552): an `mcpb` package's server (downloaded, hash-checked) is
asked inside the sandbox and its App tools are listed with what they declare; a remote is not
contacted ("listed after the first connect"); an npm package is not downloaded for a plan."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.sandbox.probe import landlock_abi
from app.testing.fake_mcp_registry import FakeMcpRegistry, server_json
from tests.api.conftest import AppMaker, ok
from tests.mcp_catalog.app_bundle import DECLARED, app_bundle
from tests.mcp_catalog.test_install import DOWNLOADS

pytestmark = pytest.mark.skipif(landlock_abi({})[0] < 1, reason="needs a kernel with Landlock")


async def test_the_registry_plan_lists_an_mcpb_packages_apps_and_says_when_others_are_known(
    make_app: AppMaker, tmp_path: Path
) -> None:
    data = app_bundle(tmp_path / "app-kit.mcpb").read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    with FakeMcpRegistry() as registry:
        registry.files["app-kit.mcpb"] = data
        url = f"{registry.base_url}/files/app-kit.mcpb"
        mcpb = {"registryType": "mcpb", "identifier": url, "version": "1.2.0", "fileSha256": sha}
        npm = {"registryType": "npm", "identifier": "@example/weather", "version": "1.0.0"}
        registry.entries += [
            server_json(
                "io.example/app-kit",
                "A bundle with an App",
                "1.2.0",
                packages=[{**mcpb, "transport": {"type": "stdio"}}],
            ),
            server_json("io.example/weather", "Weather", packages=[{**npm, "transport": {"type": "stdio"}}]),
            server_json(
                "io.example/remote",
                "A remote",
                remotes=[{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}],
            ),
        ]
        app, _ = await make_app(env={"CASHCODE_MCP_REGISTRY_URL": registry.base_url})
        planned = await ok(app, "mcp_catalog.registry.plan", {"name": "io.example/app-kit"})
        probe = planned["apps"]
        assert probe["state"] == "listed", probe
        [show] = probe["apps"]
        assert show["tool"] == "show_probe" and show["connect_domains"] == [DECLARED]
        assert show["permissions"] == ["camera"]
        weather = await ok(app, "mcp_catalog.registry.plan", {"name": "io.example/weather"})
        assert weather["apps"]["state"] == "not_installed" and weather["apps"]["apps"] == []
        remote = await ok(app, "mcp_catalog.registry.plan", {"name": "io.example/remote"})
        assert remote["kind"] == "remote" and remote["apps"]["state"] == "remote"
        names = {s["name"] for s in (await ok(app, "mcp.servers.list"))["servers"]}
        assert not names & {"app-kit", "weather", "remote"}  # a plan installs nothing


@pytest.mark.timeout(1200)  # the first run downloads mcp-server-time into the test cache
async def test_a_catalog_plan_says_apps_come_with_the_install_which_lists_them(make_app: AppMaker) -> None:
    app, _ = await make_app(env=DOWNLOADS)
    planned = await ok(app, "mcp_catalog.plan", {"name": "mcp-server-time", "inputs": {"timezone": ["UTC"]}})
    assert planned["apps"]["state"] == "not_installed"
    done = await ok(app, "mcp_catalog.install", {"name": "mcp-server-time", "inputs": {"timezone": ["UTC"]}})
    # asked of the installed server in the sandbox, before its first connect: tools, no App
    assert done["apps"]["state"] == "listed", done["apps"]
    assert done["apps"]["tool_count"] >= 2 and done["apps"]["apps"] == []
    view = await ok(app, "mcp.servers.get", {"name": "time"})
    assert view["status"] == "disconnected" and view["tool_count"] == 0
