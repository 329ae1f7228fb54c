"""The ASGI app of `cashcode serve`: guard middleware + invoke, events and static routes.

Everything it needs is passed in; nothing here is module-level state, so tests can build as
many independent servers as they like.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.types import ASGIApp

from app.observability.request_id import RequestIdMiddleware
from app.server.auth import AccessPolicy
from app.server.contracts import ServedApp
from app.server.events_ws import events_router
from app.server.guard import Guard
from app.server.invoke import MAX_BODY_BYTES, invoke_router
from app.server.static import static_router


def create_http_app(
    app: ServedApp,
    static_dir: Path,
    token: str,
    port: int,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    event_queue_limit: int | None = None,
) -> ASGIApp:
    policy = AccessPolicy(token=token, port=port)
    api = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    api.include_router(invoke_router(app, max_body_bytes))
    if event_queue_limit is None:
        api.include_router(events_router(app))
    else:
        api.include_router(events_router(app, queue_limit=event_queue_limit))
    # Last: its catch-all path would otherwise shadow the API routes.
    api.include_router(static_router(static_dir, policy))
    return RequestIdMiddleware(Guard(api, policy), secrets=[token])  # app/observability/request_id.py
