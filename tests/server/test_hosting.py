from __future__ import annotations

import asyncio
from pathlib import Path

from app.server.auth import AccessPolicy
from app.server.hosting import LifespanHost
from app.server.http import create_http_app
from app.server.runner import LocalServer, bind_loopback, bound_port
from tests.server.conftest import WAIT_S, StubApp, serve_stub, wait_until


async def test_the_app_is_built_at_startup_and_closed_at_shutdown(static_dir: Path) -> None:
    async with serve_stub(static_dir) as served:
        assert served.app.closed is False
        app = served.app
    assert app.closed is True


async def test_a_failing_build_stops_the_server_with_the_reason(static_dir: Path) -> None:
    async def build() -> StubApp:
        raise RuntimeError("database is locked")

    sock = bind_loopback(0)
    port = bound_port(sock)
    host = LifespanHost(build, lambda app: create_http_app(app, static_dir, AccessPolicy.create(port)))
    server = LocalServer(sock, host)
    try:
        async with asyncio.timeout(WAIT_S):
            try:
                await server.serve()
            except SystemExit:
                pass  # uvicorn's way of reporting a failed start-up
    finally:
        sock.close()
    assert not server.started
    assert host.startup_error == "RuntimeError: database is locked"


async def test_the_server_answers_only_on_loopback(static_dir: Path) -> None:
    async with serve_stub(static_dir) as served:
        await wait_until(lambda: True, "noop")
        assert served.base_url.startswith("http://127.0.0.1:")
