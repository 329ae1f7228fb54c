"""The memory capability's events (declared in app/memory/plugin.py)."""

from __future__ import annotations

from typing import Literal

from app.contracts.events import Event


class ContextLeftOut(Event):
    """A turn's context starts later than the chat: older messages did not fit and have not been
    summarised yet (consolidation keeps failing). The model is told; so is the user."""

    type: Literal["context_left_out"] = "context_left_out"
    chat_id: str


class MemoryProposed(Event):
    """Dream stored a MEMORY.md change for review (review mode): a new Inbox item (issue 35)."""

    type: Literal["memory_proposed"] = "memory_proposed"
    proposal_id: str


EVENTS = (ContextLeftOut, MemoryProposed)
