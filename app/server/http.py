"""The ASGI app of `cashcode serve`: guard middleware + invoke, events and static routes.

Everything it needs is passed in; nothing here is module-level state, so tests can build as
many independent servers as they like.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.types import ASGIApp

from app.observability.request_id import RequestIdMiddleware
from app.server.app_frames import app_frame_router
from app.server.auth import AccessPolicy
from app.server.contracts import RouteTypes, ServedApp
from app.server.events_ws import events_router
from app.server.guard import Guard
from app.server.invoke import MAX_BODY_BYTES, internal_error, invoke_router
from app.server.rest import rest_router
from app.server.script_ws import script_ws_router
from app.server.static import static_router


def create_http_app(
    app: ServedApp,
    static_dir: Path,
    policy: AccessPolicy,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    event_queue_limit: int | None = None,
    route_types: RouteTypes | None = None,
) -> ASGIApp:
    if route_types is None:
        from app.api.route_types import ROUTE_TYPES  # the models the OpenAPI document describes

        route_types = ROUTE_TYPES
    api = FastAPI(
        docs_url=None, redoc_url=None, openapi_url=None, exception_handlers={Exception: internal_error}
    )
    api.include_router(invoke_router(app, max_body_bytes))
    if event_queue_limit is None:
        api.include_router(events_router(app))
    else:
        api.include_router(events_router(app, queue_limit=event_queue_limit))
    api.include_router(script_ws_router(app))
    api.include_router(rest_router(app, route_types))
    api.include_router(app_frame_router(app, policy.port))  # MCP App pages (outside the prefix)
    # Last: its catch-all path would otherwise shadow the API routes.
    api.include_router(static_router(static_dir))
    # Log lines repeat each answer's X-Request-ID; the process's tokens are redacted from them.
    secrets = [policy.start.token, policy.session, policy.api_token, policy.prefix]
    return RequestIdMiddleware(Guard(api, policy), secrets=secrets)
