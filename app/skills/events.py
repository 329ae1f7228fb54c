"""The Skills capability's events (declared in app/skills/plugin.py)."""

from __future__ import annotations

from typing import Literal

from app.contracts.events import Event


class SkillsChanged(Event):
    type: Literal["skills_changed"] = "skills_changed"
    revision: int


EVENTS = (SkillsChanged,)
