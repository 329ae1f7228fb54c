"""Route types of the MCP catalog (declared in app/mcp_catalog/plugin.py)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from app.contracts import replies as m
from app.mcp_catalog import api_models as x
from app.mcp_catalog import registry_api_models as r

ROUTE_TYPES: Mapping[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "mcp_catalog.list": (x.CatalogSearch, x.CatalogList),
    "mcp_catalog.plan": (x.CatalogInstall, x.CatalogPlan),
    "mcp_catalog.install": (x.CatalogInstall, x.CatalogInstalled),
    "mcp_catalog.uninstall": (x.CatalogRef, x.CatalogRemoved),
    # MCP Bundles (app/mcp_catalog/bundle_service.py)
    "mcp_catalog.bundle_preview": (x.BundleSource, x.BundlePreview),
    "mcp_catalog.bundle_install": (x.BundleSource, x.CatalogInstalled),
    # the MCP Registry (app/mcp_catalog/registry_service.py)
    "mcp_catalog.registry.search": (r.RegistrySearch, r.RegistryList),
    "mcp_catalog.registry.plan": (r.RegistryInstall, r.RegistryPlan),
    "mcp_catalog.registry.install": (r.RegistryInstall, x.CatalogInstalled),
    "mcp_catalog.registry.settings": (m.Empty, r.RegistrySettingsView),
    "mcp_catalog.registry.save_settings": (r.RegistrySettingsSave, r.RegistrySettingsView),
}
