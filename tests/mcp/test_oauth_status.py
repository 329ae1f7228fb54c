"""The Market's OAuth sign-in state, separate from the connection status, against a real MCP
server behind OAuth (tests/mcp/servers/oauth_server.py): unknown before the server asks, signed
in after Connect (through the real loopback redirect), still signed in after Disconnect, expired
when the token's lifetime has passed, and sign out deletes the tokens from the keyring."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.settings.secrets import SecretStore
from tests.api.conftest import AppMaker, err, ok
from tests.mcp.helpers import http_server

OAUTH_SERVER = Path(__file__).with_name("servers") / "oauth_server.py"


@pytest.fixture
def oauth_url() -> Iterator[str]:
    with http_server(OAUTH_SERVER, "--port") as url:
        yield url


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The "user" approves in the browser: the test server's /authorize redirects to our
    loopback listener at once, so following the redirects completes the sign-in."""
    opened: list[str] = []

    def open_url(url: str) -> bool:
        opened.append(url)
        with urllib.request.urlopen(url, timeout=30) as response:  # follows the redirect
            assert b"Signed in" in response.read()
        return True

    monkeypatch.setattr("app.mcp.oauth._open_browser", open_url)
    return opened


async def test_sign_in_state_is_shown_apart_from_the_connection_and_sign_out_deletes_tokens(
    make_app: AppMaker, oauth_url: str, browser: list[str], secrets: SecretStore
) -> None:
    app, _ = await make_app()
    created = await ok(app, "mcp.servers.create", {"name": "remote", "transport": "http", "url": oauth_url})
    assert created["auth"] == "none"  # it has not asked for a sign-in yet

    # The model's lazy connect never opens a browser, but the server is now known to need one.
    failed = await err(app, "mcp.servers.sign_out", {"name": "test_stdio_mcp"})
    assert failed["code"] == "invalid"
    connected = await ok(app, "mcp.servers.connect", {"name": "remote"})
    assert connected["status"] == "connected" and connected["auth"] == "signed_in"
    assert len(browser) == 1 and "/authorize" in browser[0]
    assert (await ok(app, "mcp.tools.call", {"name": "remote", "tool": "whoami"}))["text"] == "signed in"
    tokens = secrets.get("mcp:remote:oauth:tokens")
    assert tokens and "access_token" in tokens

    # Disconnected but still signed in: two separate states.
    view = await ok(app, "mcp.servers.disconnect", {"name": "remote"})
    assert (view["status"], view["auth"]) == ("disconnected", "signed_in")
    assert "access_token" not in json.dumps(view)

    # The token's lifetime has passed (issued two hours ago, valid for one).
    issued = int(secrets.get("mcp:remote:oauth:issued") or "0")
    secrets.set("mcp:remote:oauth:issued", str(issued - 7200))
    listed = await ok(app, "mcp.servers.list")
    assert next(s for s in listed["servers"] if s["name"] == "remote")["auth"] == "expired"
    assert next(s for s in listed["servers"] if s["name"] == "test_stdio_mcp")["auth"] == "none"
    # Connect renews it with the refresh token (no browser this time).
    renewed = await ok(app, "mcp.servers.connect", {"name": "remote"})
    assert renewed["auth"] == "signed_in" and len(browser) == 1

    # Sign out: disconnects, deletes the tokens, keeps the client registration.
    out = await ok(app, "mcp.servers.sign_out", {"name": "remote"})
    assert (out["status"], out["auth"]) == ("disconnected", "signed_out")
    assert secrets.get("mcp:remote:oauth:tokens") is None
    assert secrets.get("mcp:remote:oauth:client") is not None

    # The model cannot sign in again on its own; the user's Connect can.
    again = await ok(app, "mcp.servers.connect", {"name": "remote"})
    assert again["auth"] == "signed_in" and len(browser) == 2
    # the sign-in listened on the port the client was registered with: one registration
    assert (
        browser[0].split("redirect_uri=")[1].split("&")[0]
        == browser[1].split("redirect_uri=")[1].split("&")[0]
    )
