"""The interface every hotkey adapter implements, and how one is chosen for this system."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from app.desktop.hotkey.binding import Binding

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HotkeyStatus:
    active: bool
    reason: str | None = None  # why it is not active, in plain words


class HotkeyAdapter(Protocol):
    def register(self, binding: Binding, callback: Callable[[], None]) -> HotkeyStatus:
        """Replace any earlier registration. `callback` runs on the adapter's thread."""
        ...

    def close(self) -> None: ...


class NoHotkey:
    """Where no global hotkey is possible: Settings shows `reason` and the CLI command."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    def register(self, binding: Binding, callback: Callable[[], None]) -> HotkeyStatus:
        return HotkeyStatus(False, self._reason)

    def close(self) -> None:
        return None
