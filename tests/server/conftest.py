"""A real uvicorn server on 127.0.0.1 (random port) around a small stand-in for the API facade."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.contracts.events import AppEvent
from app.server.auth import AccessPolicy
from app.server.hosting import LifespanHost
from app.server.http import create_http_app
from app.server.runner import LocalServer, bind_loopback, bound_port

WAIT_S = 10.0


class StubBus:
    def __init__(self) -> None:
        self._subscribers: list[Callable[[AppEvent], None]] = []

    def subscribe(self, callback: Callable[[AppEvent], None]) -> Callable[[], None]:
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def publish(self, *events: AppEvent) -> None:
        for event in events:
            for callback in list(self._subscribers):
                callback(event)


@dataclass
class StubApp:
    bus: StubBus = field(default_factory=StubBus)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    closed: bool = False

    async def invoke(self, route: str, payload: Any) -> Mapping[str, Any]:
        self.calls.append((route, payload))
        if route == "echo.fail":
            return {"ok": False, "error": {"code": "not_found", "message": "no such route", "details": {}}}
        return {"ok": True, "data": {"route": route, "payload": payload}}

    def routes(self) -> Mapping[str, Any]:
        return {}

    async def aclose(self) -> None:
        self.closed = True


@dataclass
class Served:
    app: StubApp
    policy: AccessPolicy
    static_dir: Path

    @property
    def port(self) -> int:
        return self.policy.port

    @property
    def token(self) -> str:
        """The one-time start token."""
        return self.policy.start.token

    @property
    def prefix(self) -> str:
        return self.policy.prefix

    def ui(self, path: str) -> str:
        """`path` as the browser UI reaches it (under the secret prefix)."""
        return self.policy.prefix + path

    @property
    def bearer(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.policy.api_token}"}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        return self.base_url

    @property
    def cookie_header(self) -> dict[str, str]:
        return {"cookie": f"{self.policy.cookie_name}={self.policy.session}"}

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(base_url=self.base_url, trust_env=False, timeout=WAIT_S)


async def wait_until(predicate: Callable[[], bool], what: str) -> None:
    async with asyncio.timeout(WAIT_S):
        while not predicate():  # noqa: ASYNC110  polls server state the test cannot await
            await asyncio.sleep(0.01)
    assert predicate(), what


@contextlib.asynccontextmanager
async def serve_built(static_dir: Path, app: Any, **options: Any) -> AsyncIterator[Served]:
    """A real server around `app` (a StubApp or the real CashCodeApp)."""
    sock = bind_loopback(0)
    port = bound_port(sock)
    policy = AccessPolicy.create(port)

    async def build() -> Any:
        return app

    host = LifespanHost(build, lambda built: create_http_app(built, static_dir, policy, **options))
    server = LocalServer(sock, host)
    task = asyncio.create_task(server.serve())
    try:
        await wait_until(lambda: server.started or task.done(), "server started")
        assert server.started
        yield Served(app=app, policy=policy, static_dir=static_dir)
    finally:
        server.stop()
        async with asyncio.timeout(WAIT_S):
            await task
        sock.close()


@contextlib.asynccontextmanager
async def serve_stub(static_dir: Path, **options: Any) -> AsyncIterator[Served]:
    async with serve_built(static_dir, StubApp(), **options) as served:
        yield served


@pytest.fixture
def static_dir(tmp_path: Path) -> Path:
    web = tmp_path / "web"
    (web / "assets").mkdir(parents=True)
    (web / "index.html").write_text(
        '<!doctype html><html><head><script src="./runtime-config.js"></script></head>'
        '<body><div id="app" data-testid="app-root">CashCode UI</div></body></html>',
        encoding="utf-8",
    )
    (web / "assets" / "app.js").write_text("console.log('ui');\n", encoding="utf-8")
    (web / "runtime-config.js").write_text('window.__CASHCODE_TRANSPORT__ = "pywebview";\n')
    (tmp_path / "secret.txt").write_text("outside the web root", encoding="utf-8")
    return web


@pytest.fixture
async def served(static_dir: Path) -> AsyncIterator[Served]:
    async with serve_stub(static_dir) as s:
        yield s
