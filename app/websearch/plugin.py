"""The web search settings capability (the `web_search` tool itself is a registry entry,
app/websearch/tool_spec.py): declared for the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from app.contracts.capability import Capability, CapabilityPlugin, SettingsSection

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.websearch.capability import WebSearchSettings

    return WebSearchSettings(host.settings, host.secrets)


def _prefs() -> type[BaseModel]:
    from app.websearch.capability import WebSearchPrefs

    return WebSearchPrefs


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="websearch",
    build=_build,
    routes="app.websearch.api_routes",
    settings=SettingsSection("websearch", _prefs),
)
