"""Shared helpers for MCP tests: the rough test server as a user stdio entry."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.api.conftest import ok

ROUGH = Path(__file__).with_name("servers") / "rough_server.py"


async def add_rough(
    app: Any,
    name: str = "rough",
    *extra: str,
    env: dict[str, str] | None = None,
    secret_env: list[str] | None = None,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "name": name,
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(ROUGH), *extra],
    }
    if env is not None:
        payload["env"] = env
    if secret_env is not None:
        payload["secret_env"] = secret_env
    await ok(app, "mcp.servers.create", payload)
    return await ok(app, "mcp.servers.confirm", {"name": name})


def server(listing: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in listing["servers"] if s["name"] == name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(proc: subprocess.Popen[bytes], port: int, limit_s: float = 60.0) -> None:
    """Bounded wait for a child to listen; waiting on the child's exit doubles as the pause."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            try:
                proc.wait(timeout=0.1)
                raise RuntimeError("the test server exited")
            except subprocess.TimeoutExpired:
                continue
    raise TimeoutError("the test server did not listen in time")


@contextlib.contextmanager
def http_server(script: Path, port_flag: str, *extra: str) -> Iterator[str]:
    """A test MCP server over Streamable HTTP on a free loopback port; yields its /mcp URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(script), port_flag, str(port), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(proc, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
