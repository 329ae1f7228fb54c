"""OAuth for servers of the 2025-03-26 MCP revision (issue 24 item 7): no protected-resource
metadata, the authorization server at the MCP server's own root.

On that path the SDK requires the metadata's `issuer` to be the server's origin exactly (RFC 8414
§3.3). The 2025-03-26 revision asks no such thing, and servers of that revision publish their
real issuer (e.g. `https://host/oauth`) at the root well-known URL; the conformance scenario
`auth/2025-03-26-oauth-metadata-backcompat` is such a server. The metadata was fetched from the
MCP server's own origin, so an issuer on that same origin names no other party: it is accepted
and read as the origin, and every endpoint the metadata names is used as published."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import urlsplit

ASM_PATH = "/.well-known/oauth-authorization-server"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def legacy_provider_class() -> type[Any]:
    """The SDK's OAuthClientProvider with the same-origin issuer of the legacy path accepted
    (built on demand: the SDK is imported only when a server asks for a sign-in)."""
    import httpx2
    from mcp.client.auth import OAuthClientProvider

    class LegacyTolerantOAuth(OAuthClientProvider):
        async def _auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            flow = super()._auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    outgoing = await flow.asend(await self._same_origin_issuer(outgoing, response))
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

        async def _same_origin_issuer(
            self, sent: httpx2.Request, response: httpx2.Response
        ) -> httpx2.Response:
            server = str(self.context.server_url)
            if (
                self.context.auth_server_url is not None  # PRM named the server: the strict rule
                or sent.method != "GET"
                or sent.url.path != ASM_PATH
                or _origin(str(sent.url)) != _origin(server)
                or response.status_code != 200
            ):
                return response
            try:
                body = json.loads(await response.aread())
            except (ValueError, UnicodeDecodeError):
                return response
            issuer = body.get("issuer") if isinstance(body, dict) else None
            if not isinstance(issuer, str) or issuer == _origin(server) or _origin(issuer) != _origin(server):
                return response
            body["issuer"] = _origin(server)
            return httpx2.Response(
                200,
                headers={"content-type": "application/json"},
                content=json.dumps(body).encode(),
                request=sent,
            )

    return LegacyTolerantOAuth
