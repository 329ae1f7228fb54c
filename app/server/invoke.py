"""`POST /api/invoke/{route}`: the HTTP form of the bridge's `invoke(route, payload)`.

The body is the route's JSON payload; the answer is the API envelope unchanged, with HTTP 200
for anything the application answered (the frontend reads `ok`), 4xx only for requests that
never reached the application (bad name, bad JSON, too large), and 500 for an internal error,
whose details carry the request id (the key to its log lines).
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Request
from pydantic_core import to_jsonable_python
from starlette.responses import JSONResponse

from app.observability.logs import REQUEST_ID
from app.server.contracts import ServedApp
from app.server.jsonbody import BadJson, parse_object

ROUTE_PATTERN = re.compile(r"^[a-z_]+(?:\.[a-z_]+){1,3}$")  # e.g. chats.list, mcp.servers.list
MAX_BODY_BYTES = 1024 * 1024
# Routes that carry files: an image of up to 20 MB as base64; a chat export with its files;
# an MCP Bundle uploaded from the browser (app/mcp_catalog/api_models.py MAX_BUNDLE_UPLOAD_B64).
LARGE_BODY_ROUTES = {
    "attachments.upload": 28 * 1024 * 1024,
    "chats.import": 256 * 1024 * 1024,
    "mcp_catalog.bundle_preview": 181 * 1024 * 1024,
    "mcp_catalog.bundle_install": 181 * 1024 * 1024,
}
_NO_STORE = {"cache-control": "no-store"}


class BodyTooLarge(Exception):
    pass


def _error(status: int, code: str, message: str) -> JSONResponse:
    body = {"ok": False, "error": {"code": code, "message": message, "details": {}}}
    return JSONResponse(body, status_code=status, headers=_NO_STORE)


async def read_limited(request: Request, limit: int) -> bytes:
    """The body, refusing early on Content-Length and again while streaming (chunked bodies)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


async def internal_error(request: Request, exc: Exception) -> JSONResponse:
    """Any exception no route handled: a JSON 500 naming the request id, never a bare text page."""
    request_id = REQUEST_ID.get()
    body = {
        "ok": False,
        "error": {
            "code": "internal",
            "message": f"Internal error ({type(exc).__name__}); see the log for request {request_id}.",
            "details": {"request_id": request_id},
        },
    }
    return JSONResponse(body, status_code=500, headers=_NO_STORE)


def invoke_router(app: ServedApp, max_body_bytes: int = MAX_BODY_BYTES) -> APIRouter:
    router = APIRouter()

    @router.post("/api/invoke/{route:path}", include_in_schema=False)
    async def invoke(route: str, request: Request) -> JSONResponse:
        if not ROUTE_PATTERN.fullmatch(route):
            return _error(400, "invalid", "Route names look like `chats.list`.")
        limit = max(max_body_bytes, LARGE_BODY_ROUTES.get(route, 0))
        try:
            raw = await read_limited(request, limit)
        except BodyTooLarge:
            return _error(413, "invalid", f"Request body is larger than {limit} bytes.")
        try:
            payload = parse_object(raw)
        except BadJson as exc:
            return _error(400, "invalid", str(exc))
        envelope = to_jsonable_python(await app.invoke(route, payload))
        error = envelope.get("error") if isinstance(envelope, dict) else None
        if isinstance(error, dict) and error.get("code") == "internal":
            error["details"] = {**(error.get("details") or {}), "request_id": REQUEST_ID.get()}
            return JSONResponse(envelope, status_code=500, headers=_NO_STORE)
        return JSONResponse(envelope, headers=_NO_STORE)

    return router
