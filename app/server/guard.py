"""ASGI middleware in front of every route: Host, Origin and cookie checks plus security headers.

A plain ASGI middleware (not Starlette's BaseHTTPMiddleware) so the same checks cover WebSocket
handshakes, which are the easiest way for a hostile page to reach a local server.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.server import pages
from app.server.auth import TOKEN_QUERY_PARAM, AccessPolicy
from app.server.headers import security_headers

# Methods a cross-site page can send without CORS preflight are the ones to fence by Origin;
# every state-changing method is, GET/HEAD are side-effect free here.
_SAFE_METHODS = frozenset({"GET", "HEAD"})


def _error_envelope(code: str, message: str) -> dict[str, object]:
    return {"ok": False, "error": {"code": code, "message": message, "details": {}}}


class Guard:
    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self._app = app
        self._policy = policy
        self._headers = security_headers(policy.port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        send = self._with_security_headers(send)
        rejection = self._check(scope)
        if rejection is not None:
            # For a WebSocket scope Starlette sends this as a handshake denial response.
            await rejection(scope, receive, send)
            return
        await self._app(scope, receive, send)

    def _with_security_headers(self, send: Send) -> Send:
        extra = self._headers

        async def wrapped(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return wrapped

    def _check(self, scope: Scope) -> Response | None:
        headers = Headers(scope=scope)
        host = headers.get("host")
        is_api = str(scope.get("path", "")).startswith("/api/")
        if host is None or not self._policy.host_ok(host):
            return self._reject(400, "bad_host", "Unexpected Host header.", html=not is_api)
        method = scope.get("method", "GET")
        if (scope["type"] == "websocket" or method not in _SAFE_METHODS) and not self._policy.origin_ok(
            headers.get("origin"), host
        ):
            return self._reject(403, "forbidden_origin", "Cross-origin requests are refused.", html=False)
        if self._is_token_exchange(scope):
            return None  # the "/" route checks the token and sets the cookie
        cookies = cookie_parser(headers.get("cookie", ""))
        if not self._policy.token_ok(cookies.get(self._policy.cookie_name)):
            return self._reject(
                401,
                "unauthorized",
                "Open the address printed by `cashcode serve` (tokens are per process).",
                html=not is_api,
            )
        return None

    @staticmethod
    def _is_token_exchange(scope: Scope) -> bool:
        if scope["type"] != "http" or scope.get("path") != "/":
            return False
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return TOKEN_QUERY_PARAM in query

    @staticmethod
    def _reject(status: int, code: str, message: str, *, html: bool) -> Response:
        if html:
            page = pages.unauthorized_page() if status == 401 else pages.bad_host_page()
            return HTMLResponse(page, status_code=status, headers={"cache-control": "no-store"})
        return JSONResponse(
            _error_envelope(code, message), status_code=status, headers={"cache-control": "no-store"}
        )
