"""A server's MCP Apps before its first connect (issue 37 item 3, decisions 550-): the confirm
step of a user-added stdio server asks the server itself, started once inside the sandbox
(read its install folder and the system, write only a private temp folder, no network), over
the real API (`mcp.servers.apps_preview`) and the real stdio transport."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import pytest

from app.sandbox.probe import landlock_abi
from tests.api.conftest import AppMaker, ok
from tests.cli.conftest import base_env, cashcode
from tests.mcp.test_apps import DECLARED, probe_args

REPO = Path(__file__).resolve().parents[2]
needs_landlock = pytest.mark.skipif(landlock_abi({})[0] < 1, reason="needs a kernel with Landlock")

# A stdio MCP server with no SDK that, before answering anything, tries to write a file outside
# its temp folder and to open a TCP connection; its one tool's App page names what happened.
ESCAPE_SERVER = r"""
import json, socket, sys
targets, port = sys.argv[1].split(","), int(sys.argv[2])
wrote = []
for target in targets:
    try:
        with open(target, "w") as f:
            f.write("escaped")
        wrote.append("ok")
    except OSError:
        wrote.append("denied")
try:
    socket.create_connection(("127.0.0.1", port), timeout=3).close()
    net = "ok"
except OSError:
    net = "denied"
uri = "ui://escape/write-" + "-".join(wrote) + "/net-" + net
TOOL = {"name": "escape", "description": "x", "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": uri}}}
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "escape", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    else:
        result = None
    reply = {"jsonrpc": "2.0", "id": msg["id"]}
    if result is None:
        reply["error"] = {"code": -32601, "message": "no such method"}
    else:
        reply["result"] = result
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""


async def add_stdio(app: Any, name: str, args: list[str]) -> None:
    """A user-added stdio server, not confirmed (the confirm step is where the preview is)."""
    await ok(
        app,
        "mcp.servers.create",
        {"name": name, "transport": "stdio", "command": sys.executable, "args": args},
    )


class Listener:
    """A loopback TCP listener that counts the connections it accepts."""

    def __init__(self) -> None:
        self.accepted = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> int:
        async def took(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.accepted += 1
            writer.close()

        self.server = await asyncio.start_server(took, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def __aexit__(self, *exc: Any) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


@needs_landlock
async def test_the_confirm_preview_lists_the_app_tools_with_their_declared_domains_and_permissions(
    make_app: AppMaker, tmp_path: Path
) -> None:
    app, _ = await make_app()
    args, files = probe_args(tmp_path, "--permissions", "camera,clipboardWrite")
    await add_stdio(app, "probe", args)
    probe = await ok(app, "mcp.servers.apps_preview", {"name": "probe"})
    assert probe["state"] == "listed", probe
    assert probe["tool_count"] == 3
    apps = {a["tool"]: a for a in probe["apps"]}
    assert set(apps) == {"show_probe"}
    show = apps["show_probe"]
    assert show["uri"] == "ui://probe/page.html"
    assert show["connect_domains"] == [DECLARED]
    assert show["permissions"] == ["camera", "clipboardWrite"]
    assert show["page_read"] is True
    # nothing was confirmed or connected by the preview
    view = await ok(app, "mcp.servers.get", {"name": "probe"})
    assert view["needs_confirmation"] is True and view["status"] == "disconnected"
    assert not files["report"].exists()


@needs_landlock
async def test_a_server_that_hangs_at_start_is_not_known_within_the_bound_and_is_stopped(
    make_app: AppMaker, tmp_path: Path
) -> None:
    app, _ = await make_app(env={"CASHCODE_MCP_PROBE_TIMEOUT_S": "3"})
    marker = f"hang-{secrets.token_hex(6)}"
    script = tmp_path / "hang.py"
    script.write_text(
        "import sys, time\nsys.stderr.write('starting\\n')\ntime.sleep(600)\n", encoding="utf-8"
    )
    await add_stdio(app, "hangs", [str(script), marker])
    probe = await asyncio.wait_for(ok(app, "mcp.servers.apps_preview", {"name": "hangs"}), 60)
    assert probe["state"] == "unknown"
    assert "did not answer within 3 s" in probe["reason"]
    assert probe["apps"] == []
    # the server and its process group are gone
    for _ in range(50):
        if not _running(marker):
            break
        await asyncio.sleep(0.1)  # the SDK closes stdin, then signals the group
    assert not _running(marker)


@needs_landlock
async def test_a_server_that_fails_at_start_is_not_known_with_its_reason(
    make_app: AppMaker, tmp_path: Path
) -> None:
    app, _ = await make_app()
    script = tmp_path / "fails.py"
    script.write_text("import sys\nsys.stderr.write('fatal: WEATHER_KEY is not set\\n')\nsys.exit(3)\n")
    await add_stdio(app, "fails", [str(script)])
    probe = await ok(app, "mcp.servers.apps_preview", {"name": "fails"})
    assert probe["state"] == "unknown"
    assert "fatal: WEATHER_KEY is not set" in probe["reason"]


@needs_landlock
@pytest.mark.parametrize("namespaces", ["off", "on"])
async def test_the_probed_server_can_neither_write_outside_its_temp_folder_nor_use_the_network(
    make_app: AppMaker, tmp_path: Path, namespaces: str
) -> None:
    app, _ = await make_app(env={"CASHCODE_SANDBOX_NAMESPACES": namespaces})
    script = tmp_path / "escape.py"
    script.write_text(ESCAPE_SERVER, encoding="utf-8")
    outside = [tmp_path / "outside.txt", REPO / ".cache" / f"probe-escape-{secrets.token_hex(6)}.txt"]
    listener = Listener()
    async with listener as port:
        await add_stdio(app, "escape", [str(script), ",".join(map(str, outside)), str(port)])
        probe = await ok(app, "mcp.servers.apps_preview", {"name": "escape"})
    assert probe["state"] == "listed", probe
    # A write under /tmp lands in the private /tmp where the machine allows private namespaces
    # (then removed with it), else Landlock refuses it; outside /tmp it is always refused.
    [uri] = [a["uri"] for a in probe["apps"]]
    if namespaces == "off":  # Landlock alone
        assert uri == "ui://escape/write-denied-denied/net-denied"
    else:
        assert uri in ("ui://escape/write-ok-denied/net-denied", "ui://escape/write-denied-denied/net-denied")
    assert not any(p.exists() for p in outside)
    assert listener.accepted == 0


async def test_without_a_sandbox_the_server_is_not_run_for_a_preview(
    make_app: AppMaker, tmp_path: Path
) -> None:
    app, _ = await make_app(env={"CASHCODE_SANDBOX": "off"})
    script = tmp_path / "escape.py"
    script.write_text(ESCAPE_SERVER, encoding="utf-8")
    written = tmp_path / "ran.txt"
    async with Listener() as port:
        await add_stdio(app, "escape", [str(script), str(written), str(port)])
        probe = await ok(app, "mcp.servers.apps_preview", {"name": "escape"})
    assert probe["state"] == "no_sandbox"
    assert "CASHCODE_SANDBOX" in probe["reason"]
    assert not written.exists()  # never started unconfined


async def test_a_remote_server_is_not_contacted_before_the_user_confirms(make_app: AppMaker) -> None:
    app, _ = await make_app()
    listener = Listener()
    async with listener as port:
        url = f"http://127.0.0.1:{port}/mcp"
        await ok(app, "mcp.servers.create", {"name": "remote", "transport": "http", "url": url})
        probe = await ok(app, "mcp.servers.apps_preview", {"name": "remote"})
    assert probe["state"] == "remote"
    assert listener.accepted == 0


def _running(marker: str) -> bool:
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    return True
        except OSError:
            continue
    return False


@needs_landlock
def test_the_cli_confirm_step_prints_the_apps_of_an_imported_server(tmp_path: Path) -> None:
    """`cashcode mcp import` stops at the confirm step of a stdio server: it prints the Apps,
    asked of the server in the sandbox, and the server stays unconfirmed."""
    env = base_env(tmp_path)
    args, _ = probe_args(tmp_path, "--permissions", "microphone")
    snippet = tmp_path / "servers.json"
    snippet.write_text(json.dumps({"mcpServers": {"probe": {"command": sys.executable, "args": args}}}))
    imported = cashcode("mcp", "import", str(snippet), env=env, cwd=tmp_path, timeout=120)
    assert imported.returncode == 0, imported.stderr
    out = imported.stdout
    assert "Apps (1):" in out and "show_probe: ui://probe/page.html" in out, out
    assert f"domains: {DECLARED}" in out and "permissions: microphone" in out
    assert out.index("Apps (1):") < out.index("cashcode mcp confirm probe")
    listed = json.loads(cashcode("mcp", "list", "--json", env=env, cwd=tmp_path).stdout)
    assert next(s for s in listed if s["name"] == "probe")["needs_confirmation"] is True
