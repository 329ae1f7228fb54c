"""Shared helpers for MCP tests: the rough test server as a user stdio entry."""

from __future__ import annotations

import sys
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
