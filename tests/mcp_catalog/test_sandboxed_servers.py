"""Stdio MCP servers under the sandbox (issue 36 acceptance): `mcp-server-time` installed from the
catalog runs sandboxed by default and answers; the real filesystem server, given `/` as its root
and set to run sandboxed, still reads only what the policy allows (not a key under ~/.ssh, not a
file outside the workspace), over the real stdio transport."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.sandbox.probe import landlock_abi, private_namespaces
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, ok
from tests.mcp_catalog.test_install import DOWNLOADS

REPO = Path(__file__).resolve().parents[2]
FILESYSTEM = "@modelcontextprotocol/server-filesystem@2026.8.31"

# What a sandboxed server without the network grant is: with user namespaces it also gets a
# private network and /tmp.
BOXED = "sandboxed, private network and /tmp" if private_namespaces({})[0] else "sandboxed"

pytestmark = pytest.mark.skipif(landlock_abi({})[0] < 1, reason="needs a kernel with Landlock")


async def call(app: Any, server: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope = await app.invoke("mcp.tools.call", {"name": server, "tool": tool, "arguments": arguments})
    assert envelope["ok"], envelope
    data: dict[str, Any] = envelope["data"]
    return data


@pytest.mark.timeout(1200)  # the first run downloads mcp-server-time into the test cache
async def test_a_catalog_installed_time_server_runs_sandboxed_and_answers(
    make_app: AppMaker, paths: AppPaths
) -> None:
    app, _ = await make_app(env=DOWNLOADS)
    await ok(app, "mcp_catalog.install", {"name": "mcp-server-time", "inputs": {"timezone": ["UTC"]}})
    view = await ok(app, "mcp.servers.get", {"name": "time"})
    assert view["sandbox"] is True and view["network"] is False
    assert view["sandbox_status"] == BOXED
    assert (await ok(app, "mcp.servers.connect", {"name": "time"}))["status"] == "connected"
    answer = await call(app, "time", "get_current_time", {"timezone": "UTC"})
    assert json.loads(answer["text"])["timezone"] == "UTC"
    listed = {s["name"]: s for s in (await ok(app, "mcp.servers.list"))["servers"]}
    assert listed["time"]["sandbox_status"] == BOXED


def filesystem_server() -> Path:
    target = REPO / ".cache" / "test-deps" / "npm-fs"
    entry = target / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    npm = shutil.which("npm")
    assert npm and shutil.which("node"), "node and npm are needed for the real-server tests"
    if not entry.exists():
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(target), FILESYSTEM],
            check=True,
            timeout=900,
            capture_output=True,
        )
    return entry


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("namespaces", ["off", "on"])
async def test_the_filesystem_server_given_root_reads_only_what_the_policy_allows(
    make_app: AppMaker, workspace: Path, tmp_path: Path, namespaces: str
) -> None:
    # Landlock alone, and with a private network and /tmp where the machine allows them (then
    # this test's folders, under /tmp, are not even there unless granted: the workspace is).
    private = namespaces == "on"
    if private and not private_namespaces({})[0]:
        pytest.skip("needs user namespaces (or root)")
    entry = filesystem_server()
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    key.write_text("PRIVATE-KEY-MATERIAL\n")
    outside = tmp_path / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("NOT-FOR-THE-SERVER\n")
    (workspace / "notes.txt").write_text("The launch code is BLUE-7.\n")
    app, _ = await make_app(env={"HOME": str(home), "CASHCODE_SANDBOX_NAMESPACES": namespaces})
    node = shutil.which("node")
    assert node
    created = await ok(
        app,
        "mcp.servers.create",
        {"name": "fs", "transport": "stdio", "command": node, "args": [str(entry), "/"], "sandbox": True},
    )
    assert created["sandbox"] is True
    assert created["sandbox_status"] == ("sandboxed, private network and /tmp" if private else "sandboxed")
    await ok(app, "mcp.servers.confirm", {"name": "fs"})
    assert (await ok(app, "mcp.servers.connect", {"name": "fs"}))["status"] == "connected"

    inside = await call(app, "fs", "read_text_file", {"path": str(workspace / "notes.txt")})
    assert "BLUE-7" in inside["text"]
    system = await call(app, "fs", "read_text_file", {"path": "/etc/os-release"})
    assert "NAME=" in system["text"]
    for denied in (key, outside):
        result = await call(app, "fs", "read_text_file", {"path": str(denied)})
        assert "PRIVATE-KEY" not in result["text"] and "NOT-FOR-THE-SERVER" not in result["text"]
        refused = "denied" in result["text"].lower() or "EACCES" in result["text"]
        assert refused or (private and "ENOENT" in result["text"]), result
    # the same server unconfined reads the key: the sandbox, not the server, kept it out
    spec = {"transport": "stdio", "command": node, "args": [str(entry), "/"]}
    await ok(app, "mcp.servers.create", {"name": "fs-open", **spec})
    await ok(app, "mcp.servers.confirm", {"name": "fs-open"})
    opened = await call(app, "fs-open", "read_text_file", {"path": str(key)})
    assert "PRIVATE-KEY-MATERIAL" in opened["text"]


async def test_a_user_added_server_is_not_sandboxed_unless_asked(make_app: AppMaker) -> None:
    app, _ = await make_app()
    made = await ok(app, "mcp.servers.create", {"name": "plain", "transport": "stdio", "command": "true"})
    assert made["sandbox"] is False and made["sandbox_status"] == "not sandboxed (off for this server)"
    turned = await ok(app, "mcp.servers.update", {"name": "plain", "sandbox": True, "network": True})
    assert turned["sandbox"] and turned["network"]
    assert turned["sandbox_status"] == "sandboxed, network allowed (any host)"
