"""The mcp.* routes the catalog services go through (decision 140): one call helper that keeps
the failure's code, key and params, so a worded error of app/mcp reaches the user worded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.contracts.errors import ApiFailure
from app.contracts.mcp_apps import McpAppsProbe
from app.host.host import AppPort


async def call_route(app: AppPort, route: str, payload: Mapping[str, Any]) -> Any:
    """The route's data; its failure raised again as the same ApiFailure."""
    envelope = await app.invoke(route, payload)
    if not envelope["ok"]:
        error = envelope["error"]
        key, params = error.get("key", ""), error.get("params")
        raise ApiFailure(error["code"], error["message"], key=key, params=params)
    return envelope["data"]


async def server_names(app: AppPort) -> set[str]:
    """Names of the configured MCP servers."""
    data = await call_route(app, "mcp.servers.list", {})
    return {str(s["name"]) for s in data["servers"]}


async def installed_apps(app: AppPort, server: str) -> McpAppsProbe:
    """The Apps of a server just installed, before its first connect: asked of the server
    started once in the sandbox (`mcp.servers.apps_preview`, app/mcp/app_probe.py)."""
    try:
        data = await call_route(app, "mcp.servers.apps_preview", {"name": server})
    except ApiFailure as exc:
        return McpAppsProbe(state="unknown", reason=exc.message)
    return McpAppsProbe.model_validate(data)
