"""Route types of the MCP capability, merged into app/api/route_types.py with one line."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from app.contracts import replies as m
from app.contracts.mcp_apps import McpAppsProbe
from app.mcp import api_models as x
from app.mcp import apps_api as a

# Same shape as app/api/route_types.RouteTable (not imported: that module imports this one).
ROUTE_TYPES: Mapping[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "mcp.servers.list": (m.Empty, x.McpServerList),
    "mcp.servers.get": (x.McpServerRef, x.McpServerView),
    "mcp.servers.create": (x.McpServerCreate, x.McpServerView),
    "mcp.servers.update": (x.McpServerUpdate, x.McpServerView),
    "mcp.servers.delete": (x.McpServerRef, m.Ok),
    "mcp.servers.confirm": (x.McpServerRef, x.McpServerView),
    "mcp.servers.connect": (x.McpServerRef, x.McpServerView),
    "mcp.servers.disconnect": (x.McpServerRef, x.McpServerView),
    "mcp.servers.sign_out": (x.McpServerRef, x.McpServerView),
    "mcp.servers.tools": (x.McpServerRef, x.McpToolList),
    "mcp.servers.apps_preview": (x.McpServerRef, McpAppsProbe),
    "mcp.servers.import_preview": (x.McpImportText, x.McpImportPreview),
    "mcp.servers.import": (x.McpImportText, x.McpImportResult),
    "mcp.tools.set_policy": (x.McpToolPolicySet, m.Ok),
    "mcp.tools.call": (x.McpCall, x.McpCallResult),
    "mcp.resources.list": (x.McpServerRef, x.McpResourceList),
    "mcp.resources.read": (x.McpResourceRead, x.McpResourceContents),
    "mcp.resources.attach": (x.McpResourceAttach, x.McpResourceAttachments),
    "mcp.prompts.list": (x.McpServerRef, x.McpPromptList),
    "mcp.prompts.get": (x.McpPromptGet, x.McpPromptResult),
    "mcp.elicitation.answer": (x.McpElicitationAnswer, m.Ok),
    # MCP Apps (app/mcp/apps_routes.py)
    "mcp.apps.calls": (a.McpAppChat, a.McpAppCallList),
    "mcp.apps.open": (a.McpAppRef, a.McpAppView),
    "mcp.apps.page": (a.McpAppPageRef, a.McpAppPage),
    "mcp.apps.call": (a.McpAppToolCall, a.McpAppToolResult),
    "mcp.apps.note": (a.McpAppNote, m.Ok),
    "mcp.apps.permission": (a.McpAppPermission, a.McpAppPermissionResult),
}
