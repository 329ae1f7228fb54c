"""The route table's types: route name -> (request model, response model).

Handlers are bound in `app/api/routes.py`; TypeScript types are generated from this table, so
adding a route here is what makes it visible to the frontend.

A capability declares the module of its own table in its plugin (`CapabilityPlugin.routes`,
app/contracts/capability.py); the tables are merged below on first use, and its
`Capability.routes()` supplies the handlers.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, MutableMapping

from pydantic import BaseModel

from app.api import models as m
from app.api.plugins import PLUGINS

RouteTypes = tuple[type[BaseModel], type[BaseModel]]
RouteTable = Mapping[str, RouteTypes]

CORE_ROUTES: RouteTable = {
    "app.info": (m.Empty, m.AppInfo),
    "app.detect_ollama": (m.Empty, m.OllamaProbe),
    "chats.list": (m.ChatListQuery, m.ChatList),
    "chats.create": (m.ChatCreate, m.ChatSummary),
    "chats.get": (m.ChatGet, m.ChatDetail),
    "chats.rename": (m.ChatRename, m.ChatSummary),
    "chats.delete": (m.ChatRef, m.Ok),
    "chat.send": (m.ChatSend, m.TurnRef),
    "chat.cancel": (m.ChatRef, m.Ok),
    "chat.steer": (m.ChatSteer, m.TurnRef),
    "chat.queue": (m.ChatSend, m.QueuedTurn),
    "chat.retry": (m.ChatRef, m.TurnRef),
    "chat.approve": (m.ApprovalAnswer, m.Ok),
    "providers.list": (m.Empty, m.ProviderList),
    "providers.save": (m.ProviderInput, m.ProviderView),
    "providers.delete": (m.ProviderRef, m.Ok),
    "providers.test": (m.ProviderRef, m.ConnectionTest),
    "models.list": (m.ModelsQuery, m.ModelList),
    "settings.get": (m.Empty, m.SettingsView),
    "settings.update": (m.SettingsPatch, m.SettingsView),
    "approvals.list": (m.Empty, m.GrantList),
    "approvals.revoke": (m.GrantRef, m.Ok),
    "approvals.enable": (m.GrantRef, m.Ok),
    "tools.list": (m.Empty, m.ToolList),
    # Served by the desktop adapter only (native dialog); other adapters answer `unsupported`.
    "desktop.pick_folder": (m.Empty, m.FolderPick),
    "desktop.pick_file": (m.FilePickQuery, m.FolderPick),
}

# Tables that are not a capability's: the branch routes of the core, and the desktop adapter's
# own routes (declared here so every surface and the TypeScript types know them; served only
# by the window, others answer `unsupported`). Capabilities declare theirs in their plugin.
OWN_TABLES: tuple[str, ...] = ("app.api.branch_routes", "app.api.inbox_routes", "app.desktop.api_routes")
CAPABILITY_TABLES: tuple[str, ...] = (*(p.routes for p in PLUGINS if p.routes is not None), *OWN_TABLES)


class LazyRouteTable(MutableMapping[str, RouteTypes]):
    """The core routes at once; the capability tables (and their ~150 pydantic models) on the
    first lookup of any other name. `cashcode ask` only calls core routes, so it never pays for
    them (SPEC S14 start-up budget); listing or iterating loads everything."""

    def __init__(self, core: RouteTable, modules: tuple[str, ...]) -> None:
        self._data: dict[str, RouteTypes] = dict(core)
        self._modules = modules
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for module in self._modules:
            table: RouteTable = importlib.import_module(module).ROUTE_TYPES
            self._data.update(table)

    def __getitem__(self, key: str) -> RouteTypes:
        if key not in self._data:
            self._load()
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(dict(self._data))

    def __len__(self) -> int:
        self._load()
        return len(self._data)

    def __setitem__(self, key: str, value: RouteTypes) -> None:
        self._load()  # a later load must not overwrite what was set
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        self._load()
        del self._data[key]


ROUTE_TYPES: MutableMapping[str, RouteTypes] = LazyRouteTable(CORE_ROUTES, CAPABILITY_TABLES)
