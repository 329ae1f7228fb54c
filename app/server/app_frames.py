"""`GET /mcp-app/<token>`: an MCP App's page for its sandboxed frame (issue 37).

Served from the server's root, outside `serve`'s secret prefix (like the artifact page,
docs/decisions.md 290), so the App's `location` holds no secret; no cookie is needed or sent.
The page is the one the person's UI just opened (`mcp.apps.open` made the token); its headers
carry a policy built only from the domains the App's resource declared
(app/server/headers.py), `sandbox allow-scripts` (an opaque origin even when opened on its
own), and every powerful feature off but those the person allowed. The page comes with its
prelude (app/mcp/app_pages.py), which closes what a policy does not govern."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from app.server.contracts import ServedApp
from app.server.headers import app_frame_headers


def app_frame_router(app: ServedApp, port: int) -> APIRouter:
    router = APIRouter()

    @router.get("/mcp-app/{token}", include_in_schema=False)
    async def app_page(token: str) -> Response:
        answer = await app.invoke("mcp.apps.page", {"token": token})
        if not answer.get("ok"):
            return Response(
                "This App page is no longer open.",
                status_code=404,
                media_type="text/plain",
                headers={"cache-control": "no-store"},
            )
        page = answer["data"]
        declares_network = any(
            page[k] for k in ("connect_domains", "resource_domains", "frame_domains", "base_uri_domains")
        )
        headers = app_frame_headers(port, page["csp"], allow=page["allow"], network=declares_network)
        html = page["html"]  # with its prelude (app/mcp/app_pages.py)
        response = Response(html, media_type="text/html; charset=utf-8")
        for name, value in headers:
            response.headers.append(name.decode("ascii"), value.decode("ascii"))
        return response

    return router
