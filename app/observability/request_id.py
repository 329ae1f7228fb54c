"""ASGI middleware for `cashcode serve`: every answer carries `X-Request-ID`, and every log line
written while the request is handled repeats it (`request_id` in the JSON line).

A caller's own `X-Request-ID` is kept when it is a short plain token (so a client can correlate
its logs); anything else is replaced by a fresh id. One INFO line per request records method,
route template (`/api/skills/{name}`, never the values in the path: a Skill's or a file's name
is the user's data, and never the query string: the start URL carries the token), status and
duration.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.observability.logs import REQUEST_ID, register_secrets

HEADER = b"x-request-id"
_VALID = re.compile(rb"^[A-Za-z0-9._-]{1,64}$")
_log = logging.getLogger("app.server.requests")


class RequestIdMiddleware:
    def __init__(self, app: ASGIApp, *, secrets: Iterable[str | None] = ()) -> None:
        self._app = app
        register_secrets(secrets)  # the serve token: masked in every log line

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        request_id = _incoming(scope) or uuid.uuid4().hex
        status = {"code": 0}
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                status["code"] = int(message.get("status", 101))
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != HEADER]
                message = {**message, "headers": [*headers, (HEADER, request_id.encode())]}
            await send(message)

        token = REQUEST_ID.set(request_id)
        try:
            await self._app(scope, receive, send_with_id)
        finally:
            _log.info(
                "%s %s -> %s",
                scope.get("method", "WS"),
                route_template(scope),
                status["code"],
                extra={"duration_ms": round((time.perf_counter() - started) * 1000, 3)},
            )
            REQUEST_ID.reset(token)


def _incoming(scope: Scope) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == HEADER and _VALID.fullmatch(value):
            return str(value.decode("ascii"))
    return None


def route_template(scope: Scope) -> str:
    """The matched route's path template; unmatched paths keep only their first segment."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    if isinstance(template, str) and template:
        return template
    path = str(scope.get("path", ""))
    first = path.split("/", 2)[1] if path.count("/") >= 1 else ""
    rest = "/…" if path.count("/") > 1 else ""
    return f"/{first[:40]}{rest}"
