"""An ASGI app that builds the CashCode app during uvicorn's lifespan startup.

Building inside the lifespan puts the app's loop-bound resources (turn tasks, the event bus,
database work) on uvicorn's own loop, and the lifespan shutdown closes it (cancelling turns)
before the process exits, after uvicorn has closed client connections.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.server.contracts import ServedApp

BuildApp = Callable[[], Awaitable[ServedApp]]
MakeAsgi = Callable[[ServedApp], ASGIApp]


class LifespanHost:
    def __init__(self, build: BuildApp, make_asgi: MakeAsgi) -> None:
        self._build = build
        self._make_asgi = make_asgi
        self._app: ServedApp | None = None
        self._asgi: ASGIApp | None = None
        self.startup_error: str | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if self._asgi is None:
            # Only reachable if a server is run without lifespan; say so instead of crashing.
            await PlainTextResponse("CashCode is starting", status_code=503)(scope, receive, send)
            return
        await self._asgi(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self._app = await self._build()
                    self._asgi = self._make_asgi(self._app)
                # Any failure to build ends start-up; it is reported, not hidden in a traceback.
                except Exception as exc:
                    self.startup_error = f"{type(exc).__name__}: {exc}"
                    if self._app is not None:
                        await self._app.aclose()
                    await send({"type": "lifespan.startup.failed", "message": self.startup_error})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._app is not None:
                    await self._app.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return
