"""Request/response models of the Inbox routes (issue 35; types in app/contracts/inbox.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.contracts.inbox import InboxItem, InboxSurface
from app.contracts.replies import ApiModel


class InboxQuery(ApiModel):
    include_answered: bool = False  # also the recent answered, expired and cancelled items


class InboxList(ApiModel):
    items: list[InboxItem]  # oldest first


class InboxAnswer(ApiModel):
    id: str = Field(min_length=1, max_length=100)
    # Approvals and memory reviews ("once" = accept, "deny" = reject); a form: None or "once"
    # submits `fields`, "deny" declines it.
    decision: Literal["deny", "once", "always"] | None = None
    fields: dict[str, str] = Field(default_factory=dict, max_length=100)
    via: InboxSurface = "inbox"
