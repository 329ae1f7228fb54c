"""Which hotkey adapter this desktop gets (one module per OS beside this one)."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from app.desktop.hotkey.base import HotkeyAdapter, NoHotkey

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
