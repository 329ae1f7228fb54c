"""The Inbox's vocabulary (issue 35): every question a run asks, wherever it runs, as one item.

An item is a tool approval (its id is the approval_id), an MCP elicitation form, or a memory
proposal awaiting review. Every surface (the chat's dialog, the Inbox view, the tray, the CLI,
the API) shows the same item; the first answer wins and the others see who gave it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.contracts.events import ApprovalSummary, InboxSurface

__all__ = ["InboxField", "InboxItem", "InboxKind", "InboxSurface"]

InboxKind = Literal["approval", "elicitation", "memory_review"]
InboxOrigin = Literal["chat", "quick_ask", "task", "api", "cli"]
InboxStatus = Literal["pending", "answered", "expired", "cancelled"]
InboxDecision = Literal["deny", "once", "always"]


class InboxField(BaseModel):
    """One field of an elicitation form (a flat JSON-schema property)."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    type: str  # "string" | "number" | "integer" | "boolean"
    required: bool = False
    enum: list[str] | None = None


class InboxItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str  # approvals: the approval_id of ApprovalRequired
    kind: InboxKind
    chat_id: str | None = None
    turn_id: str | None = None
    task_id: str | None = None
    who: str  # the chat's or the task's title, or "Quick Ask"
    origin: InboxOrigin
    tool: str = ""
    title: str = ""
    detail: str = ""
    argv: list[str] | None = None
    summary: ApprovalSummary | None = None  # the same the approval dialog shows
    warnings: list[str] = Field(default_factory=list)
    can_always: bool = False
    fields: list[InboxField] = Field(default_factory=list)  # elicitation forms
    created_at: str  # ISO-8601 UTC
    status: InboxStatus = "pending"
    answer: str | None = None  # "deny" | "once" | "always" | "accept" | "decline"
    answered_by: InboxSurface | None = None
    resumable: bool = False  # restored after a restart (checkpoints, issue 35 item 3)
