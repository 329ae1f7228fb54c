"""Servers of the 2025-03-26 authorization spec: no protected resource metadata, the
authorization server's metadata at the MCP server's own origin.

The SDK requires the metadata's `issuer` to equal the issuer its well-known URL was built from
(RFC 8414 §3.3, SEP-2468): on this legacy path that is the bare origin. Servers built to the
2025-03-26 spec publish an issuer with a path on that same origin (`https://host/oauth`), which
that spec allowed, so the SDK refuses them (conformance scenario
`auth/2025-03-26-oauth-metadata-backcompat`). Here, and only on that path, metadata served from
the server's origin whose issuer lies on the same origin is taken as that origin's: the server
that answers for the origin already controls it. An issuer on another origin is still refused.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import urlsplit

LEGACY_METADATA_PATH = "/.well-known/oauth-authorization-server"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def legacy_issuer_fix(server_url: str, requested: str, status: int, body: bytes) -> bytes | None:
    """The metadata with its issuer set to the origin, or None when nothing needs changing."""
    if status != 200 or urlsplit(requested).path != LEGACY_METADATA_PATH:
        return None
    origin = _origin(server_url)
    if _origin(requested) != origin:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    issuer = data.get("issuer") if isinstance(data, dict) else None
    if not isinstance(issuer, str) or issuer.rstrip("/") == origin or _origin(issuer) != origin:
        return None
    return json.dumps({**data, "issuer": origin}).encode()


def legacy_tolerant_provider(**kwargs: Any) -> Any:
    """The SDK's `OAuthClientProvider` with the legacy-path issuer rule above."""
    import httpx2
    from mcp.client.auth import OAuthClientProvider

    class LegacyTolerantProvider(OAuthClientProvider):
        async def _auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            flow = super()._auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    if self.context.auth_server_url is None and outgoing is not request:
                        response = await self._fixed(outgoing, response)
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

        async def _fixed(self, sent: httpx2.Request, response: httpx2.Response) -> httpx2.Response:
            if response.status_code != 200 or sent.url.path != LEGACY_METADATA_PATH:
                return response
            body = await response.aread()
            fixed = legacy_issuer_fix(self.context.server_url, str(sent.url), response.status_code, body)
            if fixed is None:
                return response
            headers = {
                k: v
                for k, v in response.headers.items()
                if k.lower() not in ("content-length", "content-encoding")
            }
            return httpx2.Response(200, headers=headers, content=fixed, request=sent)

    return LegacyTolerantProvider(**kwargs)
