"""OAuth pieces of app/mcp: the loopback redirect, the "no browser unless the user pressed
Connect" rule, and token storage in the keyring (the full flows run in test_conformance.py)."""

from __future__ import annotations

import asyncio
import urllib.request

import pytest

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
        OAuthClientInformationFull(client_id="cid", redirect_uris=["http://127.0.0.1:1/cb"])
    )
    assert (await storage.get_tokens()).access_token == "at-secret-1"  # type: ignore[union-attr]
    assert (await storage.get_client_info()).client_id == "cid"  # type: ignore[union-attr]
    assert "at-secret-1" in (secrets.get("mcp:remote:oauth:tokens") or "")
    storage.forget()
    assert await storage.get_tokens() is None
