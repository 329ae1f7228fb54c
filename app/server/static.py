"""The UI's files: `/`, a dynamic `runtime-config.js`, assets (all under the guard's prefix).

`runtime-config.js` is generated rather than read from disk so the same built frontend picks
the HTTP transport here and the pywebview bridge in the desktop app.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse, HTMLResponse, Response

from app.server import pages

RUNTIME_CONFIG_JS = 'window.__CASHCODE_TRANSPORT__ = "http";\n'
_NO_STORE = {"cache-control": "no-store"}


def static_router(static_dir: Path) -> APIRouter:
    root = static_dir.resolve()
    router = APIRouter()

    def index() -> Response:
        index_file = root / "index.html"
        if not index_file.is_file():
            return HTMLResponse(pages.ui_missing_page(), status_code=503, headers=_NO_STORE)
        return FileResponse(index_file, media_type="text/html", headers=_NO_STORE)

    @router.get("/", include_in_schema=False)
    async def home() -> Response:
        return index()  # the guard has already checked the cookie

    @router.get("/runtime-config.js", include_in_schema=False)
    async def runtime_config() -> Response:
        return Response(RUNTIME_CONFIG_JS, media_type="text/javascript", headers=_NO_STORE)

    @router.get("/{path:path}", include_in_schema=False)
    async def asset(path: str) -> Response:
        candidate = (root / path).resolve()
        if candidate.is_relative_to(root) and candidate.is_file():
            return FileResponse(candidate)
        if path.startswith("api/") or "." in Path(path).name:
            return Response("Not found", status_code=404, media_type="text/plain")
        # A client-side route (history mode) reloaded in the browser: serve the app shell.
        return index()

    return router
