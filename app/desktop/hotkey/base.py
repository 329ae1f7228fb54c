"""The interface every hotkey adapter implements, and how one is chosen for this system."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Mapping
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


WAYLAND_REASON = (
    "This Wayland desktop offers no global-shortcuts portal, so CashCode cannot register a "
    "system-wide shortcut itself."
)


def create_adapter(env: Mapping[str, str], platform: str = sys.platform) -> HotkeyAdapter:
    if platform == "win32":
        from app.desktop.hotkey.windows import WindowsHotkey

        return WindowsHotkey()
    if platform == "darwin":
        from app.desktop.hotkey.macos import MacHotkey

        return MacHotkey()
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE", "").lower() == "wayland":
        from app.desktop.hotkey.portal import PortalHotkey, portal_available

        if portal_available(env):
            return PortalHotkey()
        return NoHotkey(WAYLAND_REASON)
    if env.get("DISPLAY"):
        from app.desktop.hotkey.x11 import X11Hotkey

        return X11Hotkey(env["DISPLAY"])
    return NoHotkey("No X11 display or Wayland shortcuts portal was found.")
