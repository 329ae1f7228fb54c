"""`desktop.open_path`: open a cited knowledge-base file (or its folder) with the system's
default application.

The path is never trusted: the route asks `knowledge.locate`, which answers only for an indexed
file of a knowledge base that is still inside its root (no `..`, no symbolic-link escape; app/
knowledge/citations.py), and the opener gets the path that route returned, never the page's.
The opener runs a fixed program with the path as its one argument (no shell): `xdg-open` on
Linux, `open` on macOS, the shell's default verb on Windows. The line of a citation cannot be
passed to an arbitrary default application, so a citation opens the in-app viewer at its lines
and this route is the viewer's second step ("Open in editor"). Its failure is reported: the
opener's exit status is awaited for a moment (xdg-open exits non-zero when no application takes
the file), and one still running then is taken as started.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from app.contracts.errors import ApiFailure, say

OPEN_PATH_ROUTE = "desktop.open_path"
LOCATE_ROUTE = "knowledge.locate"

log = logging.getLogger(__name__)

Opener = Callable[[str], None]

# How long the opener's exit status is awaited; xdg-open may instead wait for the application.
OPENER_GRACE_S = 5.0


class RouteApp(Protocol):
    def register_route(self, name: str, handler: Callable[..., Awaitable[Any]]) -> None: ...
    def invoke(self, route: str, payload: dict[str, Any]) -> Awaitable[dict[str, Any]]: ...


def system_opener(path: str) -> None:
    """Hand an absolute path to the platform's opener; returns once it is started."""
    if not os.path.isabs(path):  # an argument starting with "-" could be read as an option
        raise ValueError(f"not an absolute path: {path!r}")
    if sys.platform == "win32":
        os.startfile(path)
        return
    command = ["open", path] if sys.platform == "darwin" else ["xdg-open", path]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the app's session: it may outlive the window
        close_fds=True,
    )
    try:
        status = proc.wait(timeout=OPENER_GRACE_S)
    except subprocess.TimeoutExpired:
        # Still running: it waits for the application it started; reaped in the background.
        threading.Thread(target=proc.wait, name="opener-wait", daemon=True).start()
        return
    if status != 0:
        raise OSError(f"{command[0]} exited with status {status}")


def register_open_routes(app: RouteApp, opener: Opener = system_opener) -> None:
    from app.desktop.api_models import OpenPath  # lazy: pulls in pydantic

    async def handle(request: OpenPath) -> Any:
        from app.contracts.replies import Ok

        reply = await app.invoke(LOCATE_ROUTE, {"path": request.path})
        if not reply.get("ok"):
            error = reply.get("error") or {}
            raise ApiFailure(error.get("code", "not_found"), str(error.get("message", "not found")))
        located = reply["data"]
        target = located["folder"] if request.folder else located["path"]
        if not isinstance(target, str) or not os.path.isabs(target):
            raise ApiFailure("invalid", say("desktop.no_kb_folder", path=request.path))
        try:
            await asyncio.to_thread(opener, target)
        except (OSError, ValueError) as exc:
            log.warning("could not open %s: %s", target, exc)
            raise ApiFailure("unsupported", say("desktop.open_failed", path=target, reason=exc)) from exc
        return Ok()

    app.register_route(OPEN_PATH_ROUTE, handle)
