"""Real servers from the package registries, installed by the test run into `.cache/test-deps/`
(gitignored): `@modelcontextprotocol/server-everything` over stdio, SSE and Streamable HTTP, and
`mcp-server-time` over stdio — connect, list, call, resources, prompts through app/mcp."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import AppMaker, err, ok
from tests.mcp.helpers import free_port, wait_listening

REPO = Path(__file__).resolve().parents[2]
DEPS = REPO / ".cache" / "test-deps"
EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"
TIME = "mcp-server-time==2026.10.19"
INSTALL_TIMEOUT_S = 900


@pytest.fixture(scope="session")
def everything_js() -> Path:
    target = DEPS / "npm"
    entry = target / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    if not entry.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed for the real-server tests"
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(target), EVERYTHING],
            check=True,
            timeout=INSTALL_TIMEOUT_S,
            capture_output=True,
        )
    return entry


@pytest.fixture(scope="session")
def time_server() -> Path:
    target = DEPS / "py-time"
    if not (target / "mcp_server_time").exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target), TIME],
            check=True,
            timeout=INSTALL_TIMEOUT_S,
            capture_output=True,
        )
    return target


def node() -> str:
    found = shutil.which("node")
    assert found, "node is needed for the real-server tests"
    return found


async def exercise_everything(app: Any, name: str) -> None:
    view = await ok(app, "mcp.servers.connect", {"name": name})
    assert view["status"] == "connected" and view["tool_count"] >= 5
    tools = {t["name"] for t in (await ok(app, "mcp.servers.tools", {"name": name}))["tools"]}
    assert {"echo", "get-sum"} <= tools
    echo = await ok(app, "mcp.tools.call", {"name": name, "tool": "echo", "arguments": {"message": "hi"}})
    assert echo == {"ok": True, "text": "Echo: hi", "truncated": False}
    total = await ok(app, "mcp.tools.call", {"name": name, "tool": "get-sum", "arguments": {"a": 2, "b": 3}})
    assert "5" in total["text"]
    resources = (await ok(app, "mcp.resources.list", {"name": name}))["resources"]
    assert resources
    read = await ok(app, "mcp.resources.read", {"name": name, "uri": resources[0]["uri"]})
    assert read["contents"] and (read["contents"][0]["text"] or read["contents"][0]["blob_bytes"])
    prompts = {p["name"] for p in (await ok(app, "mcp.prompts.list", {"name": name}))["prompts"]}
    assert "simple-prompt" in prompts
    got = await ok(app, "mcp.prompts.get", {"name": name, "prompt": "simple-prompt"})
    assert got["messages"] and got["messages"][0]["text"]


async def test_everything_over_stdio(make_app: AppMaker, everything_js: Path) -> None:
    app, _ = await make_app()
    await ok(
        app,
        "mcp.servers.create",
        {
            "name": "everything",
            "transport": "stdio",
            "command": node(),
            "args": [str(everything_js), "stdio"],
        },
    )
    await ok(app, "mcp.servers.confirm", {"name": "everything"})
    await exercise_everything(app, "everything")


@pytest.fixture(params=[("sse", "/sse", "sse"), ("streamableHttp", "/mcp", "http")], ids=["sse", "http"])
def everything_http(request: pytest.FixtureRequest, everything_js: Path) -> Iterator[tuple[str, str]]:
    mode, path, transport = request.param
    port = free_port()
    proc = subprocess.Popen(
        [node(), str(everything_js), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(proc, port)
        yield f"http://127.0.0.1:{port}{path}", transport
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_everything_over_sse_and_streamable_http(
    make_app: AppMaker, everything_http: tuple[str, str]
) -> None:
    url, transport = everything_http
    app, _ = await make_app()
    await ok(app, "mcp.servers.create", {"name": "everything", "transport": transport, "url": url})
    await exercise_everything(app, "everything")


async def test_time_server_over_stdio(make_app: AppMaker, time_server: Path) -> None:
    app, _ = await make_app()
    await ok(
        app,
        "mcp.servers.create",
        {
            "name": "time",
            "transport": "stdio",
            "command": sys.executable,
            "args": ["-m", "mcp_server_time"],
            "env": {"PYTHONPATH": str(time_server)},
        },
    )
    await ok(app, "mcp.servers.confirm", {"name": "time"})
    view = await ok(app, "mcp.servers.connect", {"name": "time"})
    assert view["status"] == "connected"
    tools = {t["name"] for t in (await ok(app, "mcp.servers.tools", {"name": "time"}))["tools"]}
    assert {"get_current_time", "convert_time"} <= tools
    now = await ok(
        app, "mcp.tools.call", {"name": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}}
    )
    assert now["ok"] and "UTC" in now["text"]
    bad = await ok(
        app,
        "mcp.tools.call",
        {"name": "time", "tool": "get_current_time", "arguments": {"timezone": "Not/AZone"}},
    )
    assert not bad["ok"]
    # it has no resources or prompts: a clear error or an empty list, never a crash
    for route, key in (("mcp.resources.list", "resources"), ("mcp.prompts.list", "prompts")):
        envelope = await app.invoke(route, {"name": "time"})
        assert envelope["ok"] and envelope["data"][key] == [] or envelope["error"]["message"]
    assert (await err(app, "mcp.tools.call", {"name": "nope", "tool": "x"}))["code"] == "not_found"
