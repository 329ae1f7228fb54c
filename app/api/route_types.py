"""The route table's types: route name -> (request model, response model).

Handlers are bound in `app/api/routes.py`; TypeScript types are generated from this table, so
adding a route here is what makes it visible to the frontend.

A capability (app/api/extensions.py) declares its routes in its own table, merged below with
one line each; its `Capability.routes()` supplies the handlers.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from app.api import branch_routes
from app.api import models as m
from app.attachments import api_routes as attachment_routes
from app.desktop import api_routes as desktop_api_routes
from app.history import api_routes as history_routes
from app.importer import api_routes as import_routes
from app.mcp import api_routes as mcp_api_routes
from app.memory import api_routes as memory_routes
from app.observability import api_routes as obs_routes
from app.skills import api_routes as skills_api_routes
from app.websearch import api_routes as websearch_routes

RouteTable = Mapping[str, tuple[type[BaseModel], type[BaseModel]]]

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
    "tools.list": (m.Empty, m.ToolList),
    # Served by the desktop adapter only (native dialog); other adapters answer `unsupported`.
    "desktop.pick_folder": (m.Empty, m.FolderPick),
}

# Capability tables, one line each: `**app.<capability>.api_routes.ROUTE_TYPES,`
ROUTE_TYPES: RouteTable = {
    **CORE_ROUTES,
    **import_routes.ROUTE_TYPES,
    **mcp_api_routes.ROUTE_TYPES,
    **memory_routes.ROUTE_TYPES,
    **skills_api_routes.ROUTE_TYPES,
    **history_routes.ROUTE_TYPES,
    **attachment_routes.ROUTE_TYPES,
    **websearch_routes.ROUTE_TYPES,
    **obs_routes.ROUTE_TYPES,
    **desktop_api_routes.ROUTE_TYPES,
    **branch_routes.ROUTE_TYPES,
}
