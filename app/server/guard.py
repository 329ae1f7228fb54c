"""ASGI middleware in front of every route: Host, Origin, cookie/Bearer checks, the one-time
start-token exchange and security headers.

A plain ASGI middleware (not Starlette's BaseHTTPMiddleware) so the same checks cover WebSocket
handshakes, which are the easiest way for a hostile page to reach a local server.

Two ways in (see `app/server/auth.py`):
- the browser UI lives under the policy's secret prefix and authenticates with the session
  cookie (plus a same-origin `Origin` on WebSockets and state-changing requests); the prefix is
  stripped before routing, so the inner app's routes are the same for both ways;
- scripts call the fixed paths (`/ws`, `/api/...`) with `Authorization: Bearer <api token>`.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.server import pages
from app.server.auth import TOKEN_QUERY_PARAM, AccessPolicy
from app.server.headers import (
    APP_FRAME_PREFIX,
    ARTIFACT_PATH,
    artifact_security_headers,
    security_headers,
)

# Methods a cross-site page can send without CORS preflight are the ones to fence by Origin;
# every state-changing method is, GET/HEAD are side-effect free here.
_SAFE_METHODS = frozenset({"GET", "HEAD"})
_NO_STORE = {"cache-control": "no-store"}
SCRIPT_WS_PATH = "/ws"
SCRIPT_API_PREFIX = "/api/"


def _error_envelope(code: str, message: str) -> dict[str, object]:
    return {"ok": False, "error": {"code": code, "message": message, "details": {}}}


def is_script_path(path: str) -> bool:
    return path == SCRIPT_WS_PATH or path.startswith(SCRIPT_API_PREFIX)


class Guard:
    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self._app = app
        self._policy = policy
        self._headers = security_headers(policy.port)
        self._artifact_headers = artifact_security_headers(policy.port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        response, inner_scope = self._route(scope)
        send = self._with_security_headers(send, self._headers_for(response, inner_scope))
        if response is not None:
            # For a WebSocket scope Starlette sends this as a handshake denial response.
            await response(scope, receive, send)
            return
        await self._app(inner_scope, receive, send)

    def _headers_for(self, response: Response | None, inner_scope: Scope) -> list[tuple[bytes, bytes]]:
        # Only an admitted request for the artifact page (outside the prefix, or inside it with
        # the cookie checked and the prefix stripped) gets the artifact's policy; every refusal
        # and every other path keeps the app's.
        if response is None and inner_scope["type"] == "http" and inner_scope.get("path") == ARTIFACT_PATH:
            return self._artifact_headers
        if response is None and _is_app_frame(inner_scope):
            return []  # the App page's route sends its own policy (app/server/app_frames.py)
        return self._headers

    @staticmethod
    def _with_security_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:

        async def wrapped(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return wrapped

    def _route(self, scope: Scope) -> tuple[Response | None, Scope]:
        headers = Headers(scope=scope)
        hosts = headers.getlist("host")
        host = hosts[0] if len(hosts) == 1 else None  # two Host headers: which one is meant?
        path = str(scope.get("path", ""))
        if host is None or not self._policy.host_ok(host):
            return self._reject(
                400, "bad_host", "Unexpected Host header.", html=not is_script_path(path)
            ), scope
        if self._policy.under_prefix(path):
            return self._cookie_route(scope, headers, host, path)
        if scope["type"] == "http" and path == ARTIFACT_PATH and scope.get("method") in _SAFE_METHODS:
            # The artifact page lives outside the prefix, so an artifact reading its own
            # `location` learns no secret (docs/decisions.md 290). It is a static file of the
            # build, holds nothing, and gets the artifact's policy (no cookie needed or sent).
            return None, scope
        if _is_app_frame(scope):
            # An MCP App's page: outside the prefix for the same reason; the token names a page
            # the person's UI opened, and the page gets the policy its App declared.
            return None, scope
        if scope["type"] == "http" and path == "/" and self._has_start_token(scope):
            return self._exchange(scope), scope
        if is_script_path(path):
            return self._bearer_check(scope, headers, host), scope
        return self._reject(401, "unauthorized", "Not authorised.", html=True), scope

    def _cookie_route(
        self, scope: Scope, headers: Headers, host: str, path: str
    ) -> tuple[Response | None, Scope]:
        method = scope.get("method", "GET")
        needs_origin = scope["type"] == "websocket" or method not in _SAFE_METHODS
        if needs_origin and not self._policy.origin_ok(headers.get("origin"), host):
            return self._reject(
                403, "forbidden_origin", "Cross-origin requests are refused.", html=False
            ), scope
        inner = path[len(self._policy.prefix) :]
        if not self._policy.session_ok(_one_session_cookie(headers, self._policy.cookie_name)):
            return self._reject(401, "unauthorized", _LOGIN_HINT, html=not inner.startswith("/api/")), scope
        if inner == "" and scope["type"] == "http":
            # The UI's relative URLs need the trailing slash to resolve under the prefix.
            return RedirectResponse(self._policy.prefix + "/", status_code=308, headers=_NO_STORE), scope
        return None, {**scope, "path": inner, "raw_path": inner.encode("utf-8"), "root_path": ""}

    def _bearer_check(self, scope: Scope, headers: Headers, host: str) -> Response | None:
        if not self._policy.bearer_ok(headers.get("authorization")):
            return self._reject(
                401,
                "unauthorized",
                "Send `Authorization: Bearer <token>` (the token is in serve.json).",
                html=False,
            )
        origin = headers.get("origin")
        # Scripts send no Origin; a browser page that somehow holds the token still may not
        # use it from another origin.
        if origin is not None and not self._policy.origin_ok(origin, host):
            return self._reject(403, "forbidden_origin", "Cross-origin requests are refused.", html=False)
        return None

    def _exchange(self, scope: Scope) -> Response:
        presented = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(TOKEN_QUERY_PARAM, [""])[0]
        if self._policy.start.redeem(presented):
            # 303 to the prefixed UI so the capability leaves the address bar and history.
            response = RedirectResponse(self._policy.prefix + "/", status_code=303, headers=_NO_STORE)
            response.headers.append("set-cookie", self._policy.set_cookie_header())
            return response
        page = pages.start_used_page() if self._policy.start.used else pages.unauthorized_page()
        return HTMLResponse(page, status_code=401, headers=_NO_STORE)

    @staticmethod
    def _has_start_token(scope: Scope) -> bool:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return TOKEN_QUERY_PARAM in query

    @staticmethod
    def _reject(status: int, code: str, message: str, *, html: bool) -> Response:
        if html:
            page = pages.unauthorized_page() if status == 401 else pages.bad_host_page()
            return HTMLResponse(page, status_code=status, headers=_NO_STORE)
        return JSONResponse(_error_envelope(code, message), status_code=status, headers=_NO_STORE)


def _is_app_frame(scope: Scope) -> bool:
    return (
        scope["type"] == "http"
        and str(scope.get("path", "")).startswith(APP_FRAME_PREFIX)
        and scope.get("method") in _SAFE_METHODS
    )


def _one_session_cookie(headers: Headers, name: str) -> str | None:
    """The session cookie's value, or None when it is missing or sent more than once (a second
    cookie of the same name, e.g. planted for a parent path, must not silently win)."""
    values = [
        value
        for header in headers.getlist("cookie")
        for key, _, value in (part.strip().partition("=") for part in header.split(";"))
        if key == name
    ]
    return cookie_parser(f"{name}={values[0]}").get(name) if len(values) == 1 else None


_LOGIN_HINT = "Open the address printed by `cashcode serve` (tokens are per process)."
