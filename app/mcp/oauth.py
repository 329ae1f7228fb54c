"""OAuth for remote MCP servers with the SDK's OAuth client (discovery, dynamic or
pre-registered clients, PKCE, refresh). Tokens and client registrations live in the keyring.

The browser opens only for an interactive connect (the user pressed Connect, or ran a CLI
command); a connect started by the model (`mcp_prepare`) that needs a sign-in fails with a
message saying so. The redirect comes back to a one-shot loopback listener on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import parse_qs, urlsplit

from app.mcp.config import secret_name
from app.mcp.transports import free_port
from app.settings.secrets import SecretStore

if TYPE_CHECKING:  # the SDK is imported lazily (start-up time)
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SIGN_IN_TIMEOUT_S = 300.0

# The Market's sign-in state, separate from the connection status (docs/decisions.md):
# none = this server has never asked for a sign-in (or cannot: stdio, built-in, own header).
AuthState = Literal["none", "signed_in", "signed_out", "expired"]


class SignInNeeded(Exception):
    """The server needs a sign-in and this connect may not open a browser."""


class SignIn(Protocol):
    redirect_uri: str

    def reuse(self, redirect_uri: str) -> None:
        """Listen on the redirect URI of an earlier registration when possible."""

    async def redirect_handler(self, authorization_url: str) -> None: ...

    async def callback_handler(self) -> Any: ...


class KeyringTokenStorage:
    """The SDK's TokenStorage over our keyring store (JSON values)."""

    def __init__(
        self,
        secrets: SecretStore,
        server: str,
        clock: Callable[[], float] = time.time,
        redirect_uri: str = "",
    ) -> None:
        self._secrets = secrets
        self._server = server
        self._clock = clock
        self._redirect_uri = redirect_uri

    def _name(self, what: str) -> str:
        return secret_name(self._server, "oauth", what)

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        raw = self._secrets.get(self._name("tokens"))
        return OAuthToken.model_validate_json(raw) if raw else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._secrets.set(self._name("tokens"), tokens.model_dump_json(exclude_none=True))
        # OAuthToken.expires_in is relative: remember when it was issued to tell "expired".
        self._secrets.set(self._name("issued"), str(int(self._clock())))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = self._secrets.get(self._name("client"))
        info = OAuthClientInformationFull.model_validate_json(raw) if raw else None
        # A sign-in that could not listen on the registered loopback port would be refused at
        # /authorize with that registration: None makes the SDK register the client again.
        if info is not None and self._redirect_uri and info.redirect_uris:
            return info if self._redirect_uri in {str(u) for u in info.redirect_uris} else None
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._secrets.set(self._name("client"), client_info.model_dump_json(exclude_none=True))

    def forget(self) -> None:
        for what in ("tokens", "issued", "client"):
            self._secrets.delete(self._name(what))

    def sign_out(self) -> None:
        """Delete the tokens; the client registration stays (it is not a credential of the
        user, and keeping it shows the server as "not signed in" rather than unknown)."""
        for what in ("tokens", "issued"):
            self._secrets.delete(self._name(what))

    def registered_redirect_uri(self) -> str | None:
        raw = self._secrets.get(self._name("client"))
        try:
            uris = json.loads(raw).get("redirect_uris") if raw else None
        except (ValueError, AttributeError):
            return None
        return str(uris[0]) if isinstance(uris, list) and uris else None

    def expiry(self) -> float | None:
        """When the stored access token stops being valid (None: unknown or no expiry)."""
        raw = self._secrets.get(self._name("tokens"))
        try:
            expires_in = json.loads(raw).get("expires_in") if raw else None
            issued = float(self._secrets.get(self._name("issued")) or "nan")
        except (ValueError, AttributeError):
            return None
        if not isinstance(expires_in, int | float) or issued != issued:
            return None
        return issued + expires_in

    def state(self) -> AuthState:
        if not self._secrets.get(self._name("tokens")):
            return "signed_out" if self._secrets.get(self._name("client")) else "none"
        expiry = self.expiry()
        return "expired" if expiry is not None and self._clock() >= expiry else "signed_in"


class BrowserSignIn:
    """Opens the system browser and waits for the redirect on a loopback port."""

    def __init__(self, interactive: bool, open_url: Callable[[str], object] | None = None) -> None:
        self._interactive = interactive
        self._open_url = open_url or _open_browser
        self._port = free_port()
        self.redirect_uri = f"http://127.0.0.1:{self._port}/callback"
        self._result: asyncio.Future[dict[str, str]] | None = None
        self._server: asyncio.Server | None = None

    def reuse(self, redirect_uri: str) -> None:
        """Servers compare redirect URIs exactly: signing in again on the port the client was
        registered with keeps that registration (and its refresh tokens) usable."""
        parts = urlsplit(redirect_uri)
        if parts.hostname != "127.0.0.1" or parts.path != "/callback" or not parts.port:
            return
        with contextlib.suppress(OSError), socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio's listener
            probe.bind(("127.0.0.1", parts.port))  # free now (the listener opens only on redirect)
            self._port = parts.port
            self.redirect_uri = f"http://127.0.0.1:{self._port}/callback"

    async def redirect_handler(self, authorization_url: str) -> None:
        if not self._interactive:
            raise SignInNeeded(
                "this server needs a sign-in: press Connect in the MCP Market (or run cashcode mcp tools)"
            )
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self._port)
        await asyncio.to_thread(self._open_url, authorization_url)

    async def callback_handler(self) -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        assert self._result is not None
        try:
            params = await asyncio.wait_for(self._result, SIGN_IN_TIMEOUT_S)
        finally:
            if self._server is not None:
                self._server.close()
        if "code" not in params:
            raise SignInNeeded(f"the sign-in was not completed ({params.get('error', 'no code')})")
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ValueError):
            line = (await reader.readline()).decode("latin-1")
            target = line.split(" ")[1] if line.count(" ") >= 2 else "/"
            query = {k: v[0] for k, v in parse_qs(urlsplit(target).query).items()}
            body = b"Signed in. You can close this tab and return to CashCode."
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s"
                % (len(body), body)
            )
            await writer.drain()
            if self._result is not None and not self._result.done() and urlsplit(target).path == "/callback":
                self._result.set_result(query)
        writer.close()


def _open_browser(url: str) -> object:
    import webbrowser  # only when a sign-in really happens

    return webbrowser.open(url)


def oauth_provider(
    server: str, url: str, secrets: SecretStore, sign_in: SignIn, client_metadata_url: str | None = None
) -> Any:
    """The SDK's `httpx2.Auth` for one server. `client_metadata_url`: a URL-based client id
    (Client ID Metadata Document) used when the server supports it; CashCode hosts none yet, so
    the app passes None and registers dynamically (or uses a pre-registered client)."""
    from mcp.shared.auth import OAuthClientMetadata

    from app.mcp.oauth_legacy import legacy_tolerant_provider

    registered = KeyringTokenStorage(secrets, server).registered_redirect_uri()
    if registered:
        sign_in.reuse(registered)
    metadata = OAuthClientMetadata(
        redirect_uris=[sign_in.redirect_uri],  # type: ignore[list-item]
        client_name="CashCode",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    storage = KeyringTokenStorage(secrets, server, redirect_uri=sign_in.redirect_uri)
    provider = legacy_tolerant_provider(
        server_url=url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=sign_in.redirect_handler,
        callback_handler=sign_in.callback_handler,
        client_metadata_url=client_metadata_url,
    )
    # The SDK treats tokens loaded from storage as valid until a 401; with the stored issue
    # time it refreshes an expired one before the first request instead.
    provider.context.token_expiry_time = storage.expiry()
    return provider
