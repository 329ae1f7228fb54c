"""The REST routes (`app/server/rest_table.py`) and `GET /api/openapi.json`, over `app.invoke`.

Each request becomes one `invoke(route, payload)` with the payload built from the path, the
query and the JSON body; the answer is the API envelope with an HTTP status from its error code.
A route whose capability is not in this build answers 501 and never reaches the app.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from pydantic_core import to_jsonable_python
from starlette.responses import JSONResponse, Response

from app.server.contracts import RouteTypes, ServedApp
from app.server.invoke import MAX_BODY_BYTES, BodyTooLarge, read_limited
from app.server.jsonbody import BadJson, parse_object
from app.server.openapi import openapi_document
from app.server.rest_table import REST_ROUTES, RestRoute, status_for

UPLOAD_MAX_BYTES = 12 * 1024 * 1024  # a Skill ZIP is at most 10 MiB (SPEC S7); base64 adds a third
_NO_STORE = {"cache-control": "no-store"}
NO_CONTENT = 204
_ZIP_TYPES = ("application/zip", "application/octet-stream", "application/x-zip-compressed")


def _error(status: int, code: str, message: str) -> JSONResponse:
    body = {"ok": False, "error": {"code": code, "message": message, "details": {}}}
    return JSONResponse(body, status_code=status, headers=_NO_STORE)


def route_available(app: ServedApp, route_types: RouteTypes, route: str) -> bool:
    return route in route_types and route in app.routes()


async def _payload(spec: RestRoute, request: Request) -> dict[str, Any]:
    """Path and query fields, then the body's; raises BadJson / BodyTooLarge."""
    payload: dict[str, Any] = {}
    if spec.body:
        limit = UPLOAD_MAX_BYTES * 4 // 3 + 1024 if spec.upload else MAX_BODY_BYTES
        raw = await read_limited(request, limit)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if spec.upload and content_type in _ZIP_TYPES:
            if len(raw) > UPLOAD_MAX_BYTES:
                raise BodyTooLarge
            filename = request.query_params.get("filename") or "skill.zip"
            payload = {"data_base64": base64.b64encode(raw).decode("ascii"), "filename": filename}
        else:
            payload = parse_object(raw)
    for name in spec.query:
        if name in request.query_params:
            payload[name] = request.query_params[name]
    for name, value in request.path_params.items():
        if name in payload and payload[name] != value:
            raise BadJson(f"`{name}` in the body differs from the one in the path.")
        payload[name] = value
    return payload


def _endpoint(app: ServedApp, route_types: RouteTypes, spec: RestRoute) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        if not route_available(app, route_types, spec.route):
            return _error(
                501,
                "unsupported",
                f"{spec.method} {spec.path} needs the `{spec.route}` capability, which this build of "
                "CashCode does not include.",
            )
        try:
            payload = await _payload(spec, request)
        except BodyTooLarge:
            return _error(413, "invalid", "Request body is too large.")
        except BadJson as exc:
            return _error(400, "invalid", str(exc))
        envelope = await app.invoke(spec.route, payload)
        status = spec.status if envelope.get("ok") else status_for(envelope.get("error"))
        if status == NO_CONTENT:
            return Response(status_code=NO_CONTENT, headers=_NO_STORE)
        return JSONResponse(to_jsonable_python(envelope), status_code=status, headers=_NO_STORE)

    return endpoint


def rest_router(app: ServedApp, route_types: RouteTypes) -> APIRouter:
    router = APIRouter()
    for spec in REST_ROUTES:
        router.add_api_route(
            spec.path,
            _endpoint(app, route_types, spec),
            methods=[spec.method],
            include_in_schema=False,
            name=f"{spec.method} {spec.path}",
        )

    @router.get("/api/openapi.json", include_in_schema=False)
    async def openapi(request: Request) -> JSONResponse:
        available = {name: types for name, types in route_types.items() if name in app.routes()}
        server = f"http://{request.headers.get('host', '127.0.0.1')}"
        return JSONResponse(openapi_document(available, server), headers=_NO_STORE)

    return router
