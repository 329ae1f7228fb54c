"""The desktop app's optional local API: the script surface of `cashcode serve` (Bearer on `/ws`
and `/api/…`, `serve.json`) on a free loopback port, while the window is open.

Off by default (Settings → Local API, read at start-up). The desktop hook is one line in
`app/desktop/app_start.py`: `with_local_api(app, env)` returns the app unchanged when the setting
is off, and otherwise a thin wrapper whose `aclose` first stops the server and removes
serve.json.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.server.contracts import ServedApp

log = logging.getLogger(__name__)
_STOP_TIMEOUT_S = 10.0


class LocalApi:
    def __init__(self, app: ServedApp, env: Mapping[str, str]) -> None:
        # Imported here: the desktop imports this module on every start, the server rarely runs.
        from app.server.auth import AccessPolicy
        from app.server.http import create_http_app
        from app.server.main import default_static_dir
        from app.server.runner import LocalServer, bind_loopback, bound_port
        from app.server.runtime_file import RuntimeFile, runtime_dir

        self._sock = bind_loopback(0)
        self.policy = AccessPolicy.create(bound_port(self._sock))
        self._server = LocalServer(self._sock, create_http_app(app, default_static_dir(), self.policy))
        self.runtime = RuntimeFile(runtime_dir(env))
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._server.serve())
        async with asyncio.timeout(_STOP_TIMEOUT_S):
            while not self._server.started:
                if self._task.done():
                    await self._task  # raises why it could not start
                    raise RuntimeError("the local API server stopped during start-up")
                await asyncio.sleep(0.01)
        from app.server.runtime_file import RuntimeInfo

        info = RuntimeInfo(
            url=self.policy.base_url, port=self.policy.port, token=self.policy.api_token, pid=os.getpid()
        )
        if not self.runtime.publish(info):
            log.warning("local API: %s belongs to another running server; left unchanged", self.runtime.path)

    async def stop(self) -> None:
        self.runtime.remove()
        self._server.stop()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, _STOP_TIMEOUT_S)
        self._sock.close()


class _WithLocalApi:
    """The app, plus the local API to stop before it closes; everything else is delegated."""

    def __init__(self, app: Any, api: LocalApi) -> None:
        self._app = app
        self.local_api = api

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)

    async def aclose(self) -> None:
        try:
            await self.local_api.stop()
        finally:
            await self._app.aclose()


async def with_local_api(app: Any, env: Mapping[str, str]) -> Any:
    """`app` itself, or `app` serving the local API when Settings → Local API is on."""
    if not app.ctx.settings.load().local_api:
        return app
    api = LocalApi(app, env)
    try:
        await api.start()
    except Exception:  # the window must open anyway; scripts just find no serve.json
        log.exception("local API could not start")
        await api.stop()
        return app
    return _WithLocalApi(app, api)
