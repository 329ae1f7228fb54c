"""The knowledge capability's events (declared in app/knowledge/plugin.py)."""

from __future__ import annotations

from typing import Literal

from app.contracts.events import Event


class KnowledgeProgress(Event):
    """An index run of a base read one more file, or finished (`finished`)."""

    type: Literal["knowledge_progress"] = "knowledge_progress"
    base: str
    done: int
    total: int
    current: str  # the file being read ("" when finished)
    finished: bool


EVENTS = (KnowledgeProgress,)
