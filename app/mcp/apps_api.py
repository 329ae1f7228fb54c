"""Request/response models of the mcp.apps.* routes (MCP Apps, issue 37)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.contracts.replies import ApiModel as _Model

PermissionName = Literal["camera", "microphone", "geolocation", "clipboardWrite"]


class McpAppChat(_Model):
    chat_id: str = Field(min_length=1, max_length=100)


class McpAppCallView(_Model):
    call_id: str
    turn_id: str
    server: str
    tool: str
    uri: str


class McpAppCallList(_Model):
    calls: list[McpAppCallView]


class McpAppRef(_Model):
    chat_id: str = Field(min_length=1, max_length=100)
    call_id: str = Field(min_length=1, max_length=200)


class McpAppView(_Model):
    """An App's card: ready (the frame's address, the tool's input and result) or why not."""

    available: bool
    # Why not: "server_removed" (no such server any more), "server_unavailable" (it does not
    # connect), "not_an_app" (the resource is not an App page). `detail` says it in English.
    reason: Literal["", "server_removed", "server_unavailable", "not_an_app"] = ""
    detail: str = ""
    server: str
    tool: str
    uri: str
    url: str = ""  # the sandboxed page, from the server's root, outside the UI prefix
    tool_input: dict[str, Any] = Field(default_factory=dict)
    tool_result: dict[str, Any] = Field(default_factory=dict)
    tool_description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)
    connect_domains: list[str] = Field(default_factory=list)
    resource_domains: list[str] = Field(default_factory=list)
    frame_domains: list[str] = Field(default_factory=list)
    permissions: list[PermissionName] = Field(default_factory=list)  # declared
    granted: list[PermissionName] = Field(default_factory=list)  # allowed "always" (ledger)
    prefers_border: bool | None = None


class McpAppPageRef(_Model):
    token: str = Field(min_length=16, max_length=100)


class McpAppPage(_Model):
    """What the server adapter serves at the frame's address (app/server/app_frames.py), or
    the window's loader writes (frontend/public/mcp-app.html): the page with its prelude and
    the policy its resource declared."""

    html: str
    csp: str
    connect_domains: list[str]
    resource_domains: list[str]
    frame_domains: list[str]
    base_uri_domains: list[str]
    allow: list[str]  # Permissions Policy features the page may use (granted permissions)


class McpAppToolCall(_Model):
    chat_id: str = Field(min_length=1, max_length=100)
    call_id: str = Field(min_length=1, max_length=200)  # the App's card
    tool: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)


class McpAppToolResult(_Model):
    """The server's CallToolResult as JSON (content, structuredContent, isError), or the
    refusal as an error result."""

    result: dict[str, Any]
    denied: bool = False


class McpAppNote(_Model):
    """An App's model-context update ("context") or the message it asked to send ("message")."""

    chat_id: str = Field(min_length=1, max_length=100)
    call_id: str = Field(min_length=1, max_length=200)
    kind: Literal["context", "message"]
    text: str = Field(max_length=20_000)


class McpAppPermission(_Model):
    """The person's answer to an App asking for a powerful feature."""

    chat_id: str = Field(min_length=1, max_length=100)
    call_id: str = Field(min_length=1, max_length=200)
    permission: PermissionName
    decision: Literal["once", "always"]


class McpAppPermissionResult(_Model):
    url: str  # the page again, with the feature allowed
