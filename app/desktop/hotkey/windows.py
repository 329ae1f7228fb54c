"""Windows: `RegisterHotKey` through ctypes on a thread with its own message loop (no
keyboard hook, so nothing looks like a key logger). Written to the Win32 documentation;
verified only by import on Linux CI (see docs/decisions.md)."""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Callable
from typing import Any

from app.desktop.hotkey.base import HotkeyStatus
from app.desktop.hotkey.binding import Binding

log = logging.getLogger(__name__)

_MODS = {"Alt": 0x1, "Ctrl": 0x2, "Shift": 0x4, "Super": 0x8}
_MOD_NOREPEAT = 0x4000
_WM_HOTKEY = 0x0312
_WM_QUIT = 0x0012
_VK = {"Space": 0x20, "Enter": 0x0D, "Tab": 0x09, "Escape": 0x1B, "Backspace": 0x08}
_HOTKEY_ID = 0xC0DE


def virtual_key(key: str) -> int:
    if key in _VK:
        return _VK[key]
    if len(key) == 1:
        return ord(key.upper())  # VK codes of A-Z and 0-9 are their ASCII codes
    return 0x70 + int(key[1:]) - 1  # VK_F1…


class WindowsHotkey:
    """RegisterHotKey binds to the calling thread's message queue, so registration and the
    message loop live on one dedicated thread; a new binding restarts that thread."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._thread_id = 0

    def register(self, binding: Binding, callback: Callable[[], None]) -> HotkeyStatus:
        self.close()
        result: dict[str, Any] = {}
        started = threading.Event()
        mods = sum(_MODS[m] for m in binding.modifiers) | _MOD_NOREPEAT
        self._thread = threading.Thread(
            target=self._loop, args=(mods, virtual_key(binding.key), callback, result, started),
            name="hotkey-win32", daemon=True,
        )  # fmt: skip
        self._thread.start()
        started.wait(5.0)
        if not result.get("ok"):
            return HotkeyStatus(False, f"Windows refused {binding}: another program probably uses it")
        return HotkeyStatus(True)

    def _loop(self, mods: int, vk: int, callback: Callable[[], None], result: dict[str, Any],
              started: threading.Event) -> None:  # fmt: skip
        from ctypes import wintypes

        user32 = ctypes.windll.user32  # type: ignore[attr-defined]
        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        self._thread_id = kernel32.GetCurrentThreadId()
        result["ok"] = bool(user32.RegisterHotKey(None, _HOTKEY_ID, mods, vk))
        started.set()
        if not result["ok"]:
            return
        msg = wintypes.MSG()
        try:
            while user32.GetMessageW(ctypes.byref(msg), None, 0, 0) > 0:
                if msg.message == _WM_HOTKEY and msg.wParam == _HOTKEY_ID:
                    try:
                        callback()
                    except Exception:
                        log.exception("hotkey callback failed")
        finally:
            user32.UnregisterHotKey(None, _HOTKEY_ID)

    def close(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            ctypes.windll.user32.PostThreadMessageW(self._thread_id, _WM_QUIT, 0, 0)  # type: ignore[attr-defined]
            self._thread.join(2.0)
        self._thread = None
