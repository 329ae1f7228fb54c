"""The MCP capability: declared for the app (the MCP SDK itself loads only on connect)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.mcp.capability import McpCapability

    return McpCapability.build(
        host.paths,
        host.env,
        host.db,
        host.secrets,
        host.settings,
        host.publish,
        workspace=host.workspace,
        run_tool=host.run_tool,
        ledger=host.ledger,
    )


def _activations(conn: sqlite3.Connection) -> None:
    from app.mcp.activations import migrate

    migrate(conn)


def _app_calls(conn: sqlite3.Connection) -> None:
    from app.mcp.app_calls import migrate

    migrate(conn)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="mcp",
    build=_build,
    routes="app.mcp.api_routes",
    events="app.mcp.events",
    migrations=(_activations, _app_calls),
)
