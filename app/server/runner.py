"""uvicorn on a socket bound by us (so "port in use" is our clear error, never a silent retry)."""

from __future__ import annotations

import contextlib
import errno
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator

import uvicorn
from starlette.types import ASGIApp

from app.server.invoke import MAX_BODY_BYTES

LOOPBACK = "127.0.0.1"
# Every way a process is asked to stop: Ctrl+C, `kill`/service managers/logout, the terminal
# closing. Each one ends in the same graceful shutdown (serve.json removed, MCP children stopped).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM) + ((signal.SIGHUP,) if sys.platform != "win32" else ())


class PortInUse(Exception):
    def __init__(self, port: int) -> None:
        super().__init__(f"port {port} is already in use on {LOOPBACK}")
        self.port = port


def bind_loopback(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:port (port 0: the OS picks a free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        # Same as uvicorn: lets a restart reuse a port in TIME_WAIT; Linux still refuses a port
        # another socket is listening on.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
        # Listen now: connections made before uvicorn's loop starts wait in the backlog.
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(port) from exc
        raise
    return sock


def bound_port(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None] | None) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self._on_started is not None:
            self._on_started()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """uvicorn's own version handles only SIGINT/SIGTERM and re-raises the signal after the
        shutdown: for SIGTERM that kills the process before the caller's clean-up (serve.json)
        runs. Here every stop signal just asks for the graceful exit and is not re-raised."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


class LocalServer:
    def __init__(self, sock: socket.socket, asgi: ASGIApp, on_started: Callable[[], None] | None = None):
        config = uvicorn.Config(
            asgi,
            lifespan="on",
            ws="websockets-sansio",
            ws_max_size=MAX_BODY_BYTES,
            log_level="warning",
            # The start URL carries the token; keep request lines out of the terminal.
            access_log=False,
            server_header=False,
            timeout_graceful_shutdown=5,
        )
        self._server = _Server(config, on_started)
        self._sock = sock

    @property
    def started(self) -> bool:
        return self._server.started

    async def serve(self) -> None:
        await self._server.serve(sockets=[self._sock])

    def stop(self) -> None:
        self._server.should_exit = True
