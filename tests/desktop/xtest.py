"""Real input for window tests through the XTEST extension (what a user's mouse and keyboard
would send), with plain ctypes so tests need no extra package."""

from __future__ import annotations

import ctypes
import ctypes.util
from ctypes import c_char_p, c_int, c_uint, c_ulong, c_void_p

from tests.desktop.x11 import _xlib

KEYSYMS = {"Down": 0xFF54, "Up": 0xFF52, "Return": 0xFF0D, "Escape": 0xFF1B, "Control_L": 0xFFE3,
           "Shift_L": 0xFFE1, "Alt_L": 0xFFE9, "space": 0x20, "k": 0x6B}  # fmt: skip


def _libs() -> tuple[ctypes.CDLL, ctypes.CDLL]:
    x = _xlib()  # with the non-fatal error handler installed
    t = ctypes.CDLL(ctypes.util.find_library("Xtst") or "libXtst.so.6")
    x.XOpenDisplay.restype = c_void_p
    x.XOpenDisplay.argtypes = [c_char_p]
    x.XFlush.argtypes = [c_void_p]
    x.XSync.argtypes = [c_void_p, c_int]
    x.XCloseDisplay.argtypes = [c_void_p]
    x.XKeysymToKeycode.argtypes = [c_void_p, c_ulong]
    x.XKeysymToKeycode.restype = ctypes.c_ubyte
    t.XTestFakeMotionEvent.argtypes = [c_void_p, c_int, c_int, c_int, c_ulong]
    t.XTestFakeButtonEvent.argtypes = [c_void_p, c_uint, c_int, c_ulong]
    t.XTestFakeKeyEvent.argtypes = [c_void_p, c_uint, c_int, c_ulong]
    return x, t


class Input:
    def __init__(self, display_name: str) -> None:
        self._x, self._t = _libs()
        self._display = self._x.XOpenDisplay(display_name.encode())
        if not self._display:
            raise RuntimeError(f"cannot open X display {display_name}")

    def click(self, x: int, y: int, button: int = 1) -> None:
        self._t.XTestFakeMotionEvent(self._display, -1, x, y, 0)
        self._t.XTestFakeButtonEvent(self._display, button, 1, 0)
        self._t.XTestFakeButtonEvent(self._display, button, 0, 0)
        self._x.XSync(self._display, 0)

    def key(self, *names: str) -> None:
        """Press the keys in order, then release them in reverse (a chord like Ctrl+Shift+space)."""
        codes = [self._x.XKeysymToKeycode(self._display, KEYSYMS[n]) for n in names]
        for code in codes:
            self._t.XTestFakeKeyEvent(self._display, code, 1, 0)
        for code in reversed(codes):
            self._t.XTestFakeKeyEvent(self._display, code, 0, 0)
        self._x.XSync(self._display, 0)

    def close(self) -> None:
        self._x.XCloseDisplay(self._display)

    def __enter__(self) -> Input:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
