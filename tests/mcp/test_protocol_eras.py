"""Both protocol eras through the app's real connections (issue 37 item 4): a server that speaks
the stateless 2026-07-28 protocol is used that way (the SDK's `auto` mode probes
`server/discover`), over stdio and Streamable HTTP; its log lines still reach the tool card
(tests/mcp/test_transports.py); and an older server that exits on any first message but
`initialize` keeps working (app/mcp/service.py `_Opening`), and so does one whose tools ask
the user the handshake way (tests/mcp/test_elicitation.py runs such a server, too)."""

from __future__ import annotations

import sys
from pathlib import Path

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, ok
from tests.mcp.helpers import ROUGH, add_rough, http_server

STRICT = Path(__file__).with_name("servers") / "strict_legacy_server.py"


async def test_a_modern_stdio_server_is_spoken_to_in_2026_07_28(make_app: AppMaker) -> None:
    app, _ = await make_app()
    await add_rough(app, "rough", "--eras")
    called = await ok(app, "mcp.tools.call", {"name": "rough", "tool": "protocol_version"})
    assert called["text"] == "protocol=2026-07-28"


async def test_a_modern_http_server_is_spoken_to_in_2026_07_28(make_app: AppMaker) -> None:
    app, _ = await make_app()
    with http_server(ROUGH, "--http", "--eras") as url:
        await ok(app, "mcp.servers.create", {"name": "remote", "transport": "http", "url": url})
        called = await ok(app, "mcp.tools.call", {"name": "remote", "tool": "protocol_version"})
        assert called["text"] == "protocol=2026-07-28"
        # The stateless era has no session to lose: a second call after a reconnect works alike.
        await ok(app, "mcp.servers.disconnect", {"name": "remote"})
        again = await ok(app, "mcp.tools.call", {"name": "remote", "tool": "protocol_version"})
        assert again["text"] == "protocol=2026-07-28"


async def test_a_legacy_server_that_exits_on_the_discover_probe_still_works(
    make_app: AppMaker, paths: AppPaths
) -> None:
    app, _ = await make_app()
    entry = {"name": "strict", "transport": "stdio", "command": sys.executable, "args": [str(STRICT)]}
    await ok(app, "mcp.servers.create", entry)
    await ok(app, "mcp.servers.confirm", {"name": "strict"})
    view = await ok(app, "mcp.servers.connect", {"name": "strict"})
    assert view["status"] == "connected" and view["tool_count"] == 1, view
    assert (await ok(app, "mcp.tools.call", {"name": "strict", "tool": "say_legacy"}))["text"] == "legacy ok"

    # Reconnected, it is started once with the handshake alone: its log (truncated at each
    # start) no longer shows a refused probe.
    await ok(app, "mcp.servers.disconnect", {"name": "strict"})
    assert (await ok(app, "mcp.servers.connect", {"name": "strict"}))["status"] == "connected"
    log = Path(paths.log_dir) / "mcp" / "strict.stderr.log"
    assert "server/discover" not in log.read_text(encoding="utf-8")


async def test_a_tool_that_asks_the_handshake_way_is_run_again_in_legacy_mode(make_app: AppMaker) -> None:
    """The SDK's servers answer `server/discover`, but a tool calling `ctx.elicit` sends a
    server-to-client request, which a 2026-07-28 connection cannot carry: the call fails at that
    point, and the app reconnects the server in legacy mode and runs the call once more, so the
    user is asked (here: no UI, so declined) instead of seeing a protocol error."""
    app, _ = await make_app()
    await add_rough(app, "rough", "--eras")
    assert (await ok(app, "mcp.tools.call", {"name": "rough", "tool": "ask_person"}))["text"] == "decline"
    after = await ok(app, "mcp.tools.call", {"name": "rough", "tool": "protocol_version"})
    assert after["text"] == "protocol=2025-11-25"
