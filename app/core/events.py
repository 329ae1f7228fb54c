"""Typed events pushed to every surface (desktop bridge, HTTP server, CLI). SPEC S3.6.

Each event is a frozen pydantic model with a `type` literal; `AppEvent` is the union.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Event(BaseModel):
    # defer_build: schemas are built on first use, not at import (CLI start-up budget).
    model_config = ConfigDict(frozen=True, defer_build=True)


class _TurnEvent(_Event):
    chat_id: str
    turn_id: str


class ErrorInfo(BaseModel):
    """An actionable error: `code` is stable, `message` is for people."""

    model_config = ConfigDict(frozen=True)

    code: str
    message: str
    retry_after_s: float | None = None


class TurnStarted(_TurnEvent):
    type: Literal["turn_started"] = "turn_started"
    provider_id: str
    model: str
    user_text: str


class Delta(_TurnEvent):
    type: Literal["delta"] = "delta"
    text: str
    channel: Literal["text", "reasoning"] = "text"


class ToolCallEvent(_TurnEvent):
    type: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: str  # raw JSON text as the model sent it


class ApprovalRequired(_TurnEvent):
    type: Literal["approval_required"] = "approval_required"
    approval_id: str
    call_id: str
    tool: str
    title: str
    detail: str  # exactly what will run
    argv: list[str] | None = None
    can_always: bool = False


class ApprovalResolved(_TurnEvent):
    type: Literal["approval_resolved"] = "approval_resolved"
    approval_id: str
    decision: Literal["deny", "once", "always", "cancelled"]


class ToolResultEvent(_TurnEvent):
    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    ok: bool
    output: str  # for display (may be longer than what the model saw)
    truncated: bool = False
    duration_ms: float = 0.0


class UsageEvent(_TurnEvent):
    type: Literal["usage"] = "usage"
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None


class TurnDone(_TurnEvent):
    type: Literal["turn_done"] = "turn_done"
    duration_ms: float
    text: str  # the final answer
    hit_limit: bool = False  # stopped at the step limit: `text` is the note saying so


class TurnFailed(_TurnEvent):
    type: Literal["turn_failed"] = "turn_failed"
    error: ErrorInfo


class TurnCancelled(_TurnEvent):
    type: Literal["turn_cancelled"] = "turn_cancelled"


class SessionUpdated(_Event):
    type: Literal["session_updated"] = "session_updated"
    chat_id: str
    title: str
    updated_at: str


class SessionDeleted(_Event):
    type: Literal["session_deleted"] = "session_deleted"
    chat_id: str


class SkillsChanged(_Event):
    type: Literal["skills_changed"] = "skills_changed"
    revision: int


class ImportSkillRequested(_Event):
    """A Skill ZIP or folder reached the app from outside the page (a window drop, or
    `cashcode desktop --import-skill FILE` forwarded to the running instance): the UI opens its
    import preview for `path`."""

    type: Literal["import_skill_requested"] = "import_skill_requested"
    path: str


class McpServerStatus(_Event):
    """An MCP server's connection status changed (MCP Market updates live)."""

    type: Literal["mcp_server_status"] = "mcp_server_status"
    name: str
    status: Literal["disconnected", "connecting", "connected", "failed"]
    error: str | None = None  # redacted, for people
    tool_count: int = 0


class McpToolProgress(_TurnEvent):
    """A progress or logging notification from the MCP server of a running tool call; the UI
    shows it on the card of the running call named `tool`."""

    type: Literal["mcp_tool_progress"] = "mcp_tool_progress"
    tool: str  # the name the model called, e.g. mcp_server_tool
    server: str
    kind: Literal["progress", "log"]
    message: str = ""
    progress: float | None = None
    total: float | None = None


class McpElicitation(_Event):
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
class EvalProgress(_Event):
    """An eval run (app/observability/eval_runs.py) finished a case, or ended."""

    type: Literal["eval_progress"] = "eval_progress"
    run_id: str
    status: Literal["running", "done", "failed"]
    done: int
    total: int
    passed: int
    case: str | None = None  # the name of the case just finished
    case_passed: bool | None = None
class DesktopCommand(_Event):
    """The desktop shell asks ONE window's page to do something (never published on the bus:
    it goes to that window's event pusher only). `open_chat`: show `open_chat_id` (main window);
    `quick_opened`: the Quick Ask window was shown, optionally with `text` for its box."""

    type: Literal["desktop_command"] = "desktop_command"
    action: Literal["open_chat", "quick_opened"]
    # Not `chat_id`: the UI treats events with a chat_id as events OF that chat.
    open_chat_id: str | None = None
    text: str | None = None


AppEvent = Annotated[
    TurnStarted
    | Delta
    | ToolCallEvent
    | ApprovalRequired
    | ApprovalResolved
    | ToolResultEvent
    | UsageEvent
    | TurnDone
    | TurnFailed
    | TurnCancelled
    | SessionUpdated
    | SessionDeleted
    | SkillsChanged
    | ImportSkillRequested
    | McpServerStatus
    | McpToolProgress
    | McpElicitation
    | EvalProgress
    | DesktopCommand,
    Field(discriminator="type"),
]
