"""The MCP catalog capability: declared for the app (its code loads on the first route)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from app.contracts.capability import Capability, CapabilityPlugin, SettingsSection

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.mcp_catalog.capability import McpCatalogCapability

    return McpCatalogCapability(host)


def _prefs() -> type[BaseModel]:
    from app.mcp_catalog.prefs import McpCatalogPrefs

    return McpCatalogPrefs


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="mcp_catalog",
    build=_build,
    routes="app.mcp_catalog.api_routes",
    events="app.mcp_catalog.events",
    after=("mcp",),
    settings=SettingsSection("mcp_catalog", _prefs),  # the MCP Registry's base URL
    deferred=True,
)
