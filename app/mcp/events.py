"""The MCP capability's events (declared in app/mcp/plugin.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.contracts.events import Event, TurnEvent


class McpServerStatus(Event):
    """An MCP server's connection status changed (MCP Market updates live)."""

    type: Literal["mcp_server_status"] = "mcp_server_status"
    name: str
    status: Literal["disconnected", "connecting", "connected", "failed"]
    error: str | None = None  # redacted, for people
    tool_count: int = 0
    # The error's catalog entry (app/contracts/error_texts.py) and what it names, when it has one.
    error_key: str = ""
    error_params: dict[str, str] = Field(default_factory=dict)


class McpToolProgress(TurnEvent):
    """A progress or logging notification from the MCP server of a running tool call; the UI
    shows it on the card of the running call named `tool`."""

    type: Literal["mcp_tool_progress"] = "mcp_tool_progress"
    tool: str  # the name the model called, e.g. mcp_server_tool
    server: str
    kind: Literal["progress", "log"]
    message: str = ""
    progress: float | None = None
    total: float | None = None


class McpElicitation(Event):
    """An MCP server asks the user to fill a form during a call (`closed`: answered or timed
    out; the UI removes it). Answer with the `mcp.elicitation.answer` route."""

    type: Literal["mcp_elicitation"] = "mcp_elicitation"
    id: str
    server: str
    chat_id: str = ""
    turn_id: str = ""
    tool: str = ""
    message: str
    requested_schema: dict[str, object]
    defaults: dict[str, object]
    closed: bool = False
    # With `closed`: how it ended ("timeout": nobody answered in time); the Inbox shows it.
    outcome: Literal["accept", "decline", "cancel", "timeout"] | None = None


EVENTS = (McpServerStatus, McpToolProgress, McpElicitation)
