"""The MCP catalog's events (declared in app/mcp_catalog/plugin.py)."""

from __future__ import annotations

from typing import Literal

from app.contracts.events import Event


class McpCatalogProgress(Event):
    """An install's progress: the exact command it runs, a line of its output, the end."""

    type: Literal["mcp_catalog_progress"] = "mcp_catalog_progress"
    server: str
    kind: Literal["command", "output", "done", "failed"]
    text: str = ""


EVENTS = (McpCatalogProgress,)
