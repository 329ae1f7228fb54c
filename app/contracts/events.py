"""Typed events pushed to every surface (desktop bridge, HTTP server, CLI). SPEC S3.6.

Each event is a frozen pydantic model with a `type` literal. The core's events are here; a
capability declares its own in its package (`CapabilityPlugin.events`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Event(BaseModel):
    """Base of every event: capabilities declare their own subclasses (CapabilityPlugin.events)."""

    type: str

    # defer_build: schemas are built on first use, not at import (CLI start-up budget).
    model_config = ConfigDict(frozen=True, defer_build=True)


class TurnEvent(Event):
    chat_id: str
    turn_id: str


class ErrorInfo(BaseModel):
    """An actionable error: `code` is stable, `message` is for people."""

    model_config = ConfigDict(frozen=True)

    code: str
    message: str  # English; the UI words a known `code` in its language from `params`
    retry_after_s: float | None = None
    # What the message names (provider, host, model, status…), so the UI can say it in the UI
    # language; the English `message` is the fallback for a code the UI does not know.
    params: dict[str, str] = Field(default_factory=dict)
    # A route failure's catalog entry (app/contracts/error_texts.py), when it has one.
    key: str = ""


class TurnStarted(TurnEvent):
    type: Literal["turn_started"] = "turn_started"
    provider_id: str
    model: str
    user_text: str


class TurnSteered(TurnEvent):
    """Steer text reached the model inside the running turn: it is the user message after the
    step that just ended (its tool results, or its answer), so the chat shows it there."""

    type: Literal["turn_steered"] = "turn_steered"
    text: str


class TurnQueueChanged(Event):
    """A chat's server-side queue (`chat.queue`) changed: `texts` wait, in order, to be sent as
    the chat's next turns. Empty after the last was sent, or after Stop or a failed turn
    dropped them (`returned` then holds what was dropped)."""

    type: Literal["turn_queue_changed"] = "turn_queue_changed"
    chat_id: str
    texts: list[str] = Field(default_factory=list)
    returned: list[str] = Field(default_factory=list)


class Delta(TurnEvent):
    type: Literal["delta"] = "delta"
    text: str
    channel: Literal["text", "reasoning"] = "text"


class ToolCallEvent(TurnEvent):
    type: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: str  # raw JSON text as the model sent it


# What an approval asks, by kind; the UI words each from `params` (approval.summary.<code>).
ApprovalSummaryCode = Literal[
    "run_command",
    # The Sandboxed mode: a confined run was blocked; run it once more without the sandbox.
    "run_unsandboxed_network",
    "run_unsandboxed_files",
    "run_unsandboxed_program",
    "write_file_new",
    "write_file_overwrite",
    "edit_file",
    "protected_private",
    "protected_hardlink",
    "fetch_url",
    "web_search",
    "use_tool",
    "mcp_tool",
    "mcp_tool_read_only",
    "skill_script",
    "skill_create",
    "skill_update",
    "note_create",
    "note_delete",
    "todo_add",
    "todo_complete",
    "todo_delete",
    "memory_add",
    "memory_change",
    "memory_delete",
    "memory_file_add",
    "memory_file_add_own",  # an agent's own MEMORY.md (issue 38)
    "memory_file_forget",
]


class ApprovalSummary(BaseModel):
    """An approval in words the UI can translate: `code` and what it names (`params`), plus
    `exact`, the text shown verbatim (the command line, the diff, the arguments; no prose)."""

    model_config = ConfigDict(frozen=True)

    code: ApprovalSummaryCode
    params: dict[str, str] = Field(default_factory=dict)
    exact: str = ""


class ApprovalRequired(TurnEvent):
    type: Literal["approval_required"] = "approval_required"
    approval_id: str
    call_id: str
    tool: str
    title: str
    detail: str  # exactly what will run (English prose and the exact text: the CLI shows it)
    argv: list[str] | None = None
    can_always: bool = False
    summary: ApprovalSummary | None = None  # the same, for the UI to word in its language


# Where an Inbox answer came from (app/contracts/inbox.py); "timeout": nobody answered in time.
InboxSurface = Literal["chat", "inbox", "cli", "api", "tray", "quick_ask", "timeout"]


class ApprovalResolved(TurnEvent):
    type: Literal["approval_resolved"] = "approval_resolved"
    approval_id: str
    decision: Literal["deny", "once", "always", "cancelled"]
    answered_by: InboxSurface | None = None  # None: cancelled with its turn (Stop)


class InboxChanged(Event):
    """An Inbox item was added, answered, expired or cancelled (issue 35): `pending` is how
    many items wait now, so a badge needs no second call."""

    type: Literal["inbox_changed"] = "inbox_changed"
    pending: int
    item_id: str
    status: Literal["pending", "answered", "expired", "cancelled"]


class ToolResultEvent(TurnEvent):
    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    ok: bool
    output: str  # for display (may be longer than what the model saw)
    truncated: bool = False
    duration_ms: float = 0.0
    denied: bool = False  # refused (by the user or the policy): `output` is the note for the model
    # The Sandboxed mode: "sandboxed" or "not sandboxed: <why>" for a program the call started.
    sandbox: str = ""


class UsageEvent(TurnEvent):
    type: Literal["usage"] = "usage"
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None


class TurnDone(TurnEvent):
    type: Literal["turn_done"] = "turn_done"
    duration_ms: float
    text: str  # the final answer
    hit_limit: bool = False  # stopped at the step limit: `text` is the note saying so


class TurnFailed(TurnEvent):
    type: Literal["turn_failed"] = "turn_failed"
    error: ErrorInfo


class TurnCancelled(TurnEvent):
    type: Literal["turn_cancelled"] = "turn_cancelled"


class SessionUpdated(Event):
    type: Literal["session_updated"] = "session_updated"
    chat_id: str
    title: str
    updated_at: str


class SessionDeleted(Event):
    type: Literal["session_deleted"] = "session_deleted"
    chat_id: str


class DatabaseStatus(Event):
    """Writes to the database failed as busy (another program holds it), or work again: the UI
    shows "the database is busy — retrying…" while `busy` (app/store/lane.py probes the lock)."""

    type: Literal["database_status"] = "database_status"
    busy: bool


class ImportSkillRequested(Event):
    """A Skill ZIP or folder reached the app from outside the page (a window drop, or
    `cashcode desktop --import-skill FILE` forwarded to the running instance): the UI opens its
    import preview for `path`."""

    type: Literal["import_skill_requested"] = "import_skill_requested"
    path: str


class BundleOpenRequested(Event):
    """An MCP Bundle (`.mcpb`) reached the app from outside the page (a window drop, a double
    click through the file association, `cashcode desktop FILE.mcpb`): the UI opens the bundle
    preview for `path` (app/mcp_catalog/bundle_service.py)."""

    type: Literal["bundle_open_requested"] = "bundle_open_requested"
    path: str


class KnowledgeAddRequested(Event):
    """A file or folder was dropped on the Knowledge view of the window (app/desktop/dnd.py,
    which alone gets its full path): the view offers to add `path` to a knowledge base."""

    type: Literal["knowledge_add_requested"] = "knowledge_add_requested"
    path: str


class DesktopCommand(Event):
    """The desktop shell asks ONE window's page to do something (never published on the bus:
    it goes to that window's event pusher only). `open_chat`: show `open_chat_id` (main window);
    `quick_opened`: the Quick Ask window was shown, optionally with `text` for its box;
    `open_inbox`: show the Inbox view, on `open_item_id` when set (the tray, a notification)."""

    type: Literal["desktop_command"] = "desktop_command"
    action: Literal["open_chat", "quick_opened", "open_inbox"]
    # Not `chat_id`: the UI treats events with a chat_id as events OF that chat.
    open_chat_id: str | None = None
    text: str | None = None
    open_item_id: str | None = None


# Events of the core and of every capability: surfaces type what they pass on as `AppEvent` and
# read `type`; the TypeScript union is built from the core events plus each capability's
# declared ones (app/api/tsgen.py).
AppEvent = Event

CORE_EVENTS: tuple[type[Event], ...] = (
    TurnStarted,
    TurnSteered,
    TurnQueueChanged,
    Delta,
    ToolCallEvent,
    ApprovalRequired,
    ApprovalResolved,
    InboxChanged,
    ToolResultEvent,
    UsageEvent,
    TurnDone,
    TurnFailed,
    TurnCancelled,
    SessionUpdated,
    SessionDeleted,
    DatabaseStatus,
    ImportSkillRequested,
    BundleOpenRequested,
    KnowledgeAddRequested,
    DesktopCommand,
)
