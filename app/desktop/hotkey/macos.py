"""macOS: a Carbon hot key through `quickmachotkey` (no Accessibility permission needed, unlike
event taps). Written to its documentation; verified only by import on Linux CI (see
docs/decisions.md). The handler runs on the main run loop, so it only queues work."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from app.desktop.hotkey.base import HotkeyStatus
from app.desktop.hotkey.binding import Binding

log = logging.getLogger(__name__)

_KEY_CODES = {"Space": 49, "Enter": 36, "Tab": 48, "Escape": 53, "Backspace": 51}
_LETTERS = "ASDFHGZXCV BQWERYT123465=97-80]OU[IP LJ'K;\\,/NM."  # ANSI virtual key codes 0…
_F_KEYS = [122, 120, 99, 118, 96, 97, 98, 100, 101, 109, 103, 111]


def mac_key_code(key: str) -> int:
    if key in _KEY_CODES:
        return _KEY_CODES[key]
    if key.startswith("F") and len(key) > 1:
        return _F_KEYS[int(key[1:]) - 1]
    return _LETTERS.index(key)


class MacHotkey:
    def __init__(self) -> None:
        self._registered: Any = None
        self._callback: Callable[[], None] | None = None

    def register(self, binding: Binding, callback: Callable[[], None]) -> HotkeyStatus:
        if self._registered is not None:
            # quickmachotkey cannot unregister: a second binding would fire alongside the first.
            return HotkeyStatus(False, "restart CashCode to use the new shortcut")
        try:
            from quickmachotkey import mask, quickHotKey
            from quickmachotkey.constants import cmdKey, controlKey, optionKey, shiftKey
        except ImportError as exc:
            return HotkeyStatus(False, f"the macOS hotkey library is not installed ({exc})")
        self._callback = callback
        flags = {"Ctrl": controlKey, "Shift": shiftKey, "Alt": optionKey, "Super": cmdKey}
        modifier_mask = mask(*(flags[m] for m in binding.modifiers))

        def fire() -> None:
            if self._callback is not None:
                self._callback()

        try:
            self._registered = quickHotKey(virtualKey=mac_key_code(binding.key), modifierMask=modifier_mask)(
                fire
            )
        except Exception as exc:  # Carbon refused (taken by the system or another app)
            return HotkeyStatus(False, f"macOS refused {binding} ({exc})")
        return HotkeyStatus(True)

    def close(self) -> None:
        # quickmachotkey has no unregister: the handler is silenced instead.
        self._callback = None
