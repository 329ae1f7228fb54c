"""OAuth pieces of app/mcp: the loopback redirect, the "no browser unless the user pressed
Connect" rule, and token storage in the keyring (the full flows run in test_conformance.py)."""

from __future__ import annotations

import asyncio
import urllib.request

import pytest
from pydantic import AnyUrl

from app.mcp.oauth import BrowserSignIn, KeyringTokenStorage, SignInNeeded
from app.settings.secrets import SecretStore


async def test_the_loopback_redirect_delivers_the_code() -> None:
    opened: list[str] = []

    def browser(url: str) -> None:  # the "user" approves: the server redirects to our listener
        opened.append(url)

    sign_in = BrowserSignIn(interactive=True, open_url=browser)
    await sign_in.redirect_handler("https://auth.example/authorize?x=1")
    assert opened == ["https://auth.example/authorize?x=1"]
    redirect = f"{sign_in.redirect_uri}?code=abc123&state=s1"
    body = await asyncio.to_thread(lambda: urllib.request.urlopen(redirect, timeout=10).read())
    assert b"Signed in" in body
    result = await sign_in.callback_handler()
    assert (result.code, result.state) == ("abc123", "s1")


async def test_a_connect_started_by_the_model_never_opens_a_browser() -> None:
    opened: list[str] = []
    sign_in = BrowserSignIn(interactive=False, open_url=opened.append)
    with pytest.raises(SignInNeeded, match="press Connect"):
        await sign_in.redirect_handler("https://auth.example/authorize")
    assert opened == []


async def test_tokens_and_the_client_registration_live_in_the_keyring(secrets: SecretStore) -> None:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    storage = KeyringTokenStorage(secrets, "remote")
    assert await storage.get_tokens() is None
    await storage.set_tokens(
        OAuthToken(access_token="at-secret-1", token_type="Bearer", refresh_token="rt-2")
    )
    await storage.set_client_info(
        OAuthClientInformationFull(client_id="cid", redirect_uris=[AnyUrl("http://127.0.0.1:1/cb")])
    )
    tokens, client = await storage.get_tokens(), await storage.get_client_info()
    assert tokens is not None and tokens.access_token == "at-secret-1"
    assert client is not None and client.client_id == "cid"
    assert "at-secret-1" in (secrets.get("mcp:remote:oauth:tokens") or "")
    storage.forget()
    assert await storage.get_tokens() is None


async def test_a_registration_for_another_loopback_port_is_not_reused(secrets: SecretStore) -> None:
    """When the registered port is taken, the sign-in listens elsewhere; the server would refuse
    the old registration's redirect URI, so the SDK must register again (get_client_info: None)."""
    from mcp.shared.auth import OAuthClientInformationFull

    await KeyringTokenStorage(secrets, "remote").set_client_info(
        OAuthClientInformationFull(client_id="cid", redirect_uris=[AnyUrl("http://127.0.0.1:1111/callback")])
    )
    same = KeyringTokenStorage(secrets, "remote", redirect_uri="http://127.0.0.1:1111/callback")
    other = KeyringTokenStorage(secrets, "remote", redirect_uri="http://127.0.0.1:2222/callback")
    registered = await same.get_client_info()
    assert registered is not None and registered.client_id == "cid"
    assert await other.get_client_info() is None
    assert same.registered_redirect_uri() == "http://127.0.0.1:1111/callback"


def test_a_sign_in_reuses_the_registered_port_only_when_it_is_free() -> None:
    import socket

    sign_in = BrowserSignIn(interactive=True, open_url=lambda url: None)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        sign_in.reuse(f"http://127.0.0.1:{taken}/callback")
        assert sign_in.redirect_uri != f"http://127.0.0.1:{taken}/callback"
    free = BrowserSignIn(interactive=True, open_url=lambda url: None)
    wanted = free.redirect_uri
    sign_in.reuse(wanted)
    assert sign_in.redirect_uri == wanted
    sign_in.reuse("http://example.com:80/callback")  # never anything but the loopback listener
    assert sign_in.redirect_uri == wanted


async def test_sign_in_state_follows_the_stored_tokens(secrets: SecretStore) -> None:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    now = [1_000_000.0]
    storage = KeyringTokenStorage(secrets, "remote", clock=lambda: now[0])
    assert storage.state() == "none"
    await storage.set_client_info(
        OAuthClientInformationFull(client_id="cid", redirect_uris=[AnyUrl("http://127.0.0.1:1/cb")])
    )
    assert storage.state() == "signed_out"
    await storage.set_tokens(OAuthToken(access_token="a", token_type="Bearer", expires_in=60))
    assert storage.state() == "signed_in" and storage.expiry() == 1_000_060.0
    now[0] += 61
    assert storage.state() == "expired"
    storage.sign_out()
    assert storage.state() == "signed_out" and secrets.get("mcp:remote:oauth:tokens") is None
