"""X11: a passive key grab on the root window through libxcb (ctypes; no extra package).

XCB rather than Xlib: a failed grab (another program owns the shortcut) comes back as a
checked-request error on our own connection, with no process-global Xlib error handler that
could disturb Qt. The grab is repeated with Caps Lock and Num Lock, which would otherwise make
the shortcut silently stop working while they are on.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import select
import threading
from collections.abc import Callable
from ctypes import POINTER, Structure, c_char_p, c_int, c_uint, c_uint8, c_uint16, c_uint32, c_void_p

from app.desktop.hotkey.base import HotkeyStatus
from app.desktop.hotkey.binding import Binding

log = logging.getLogger(__name__)

_MASKS = {"Shift": 1, "Ctrl": 4, "Alt": 8, "Super": 64}
_LOCK, _NUM_LOCK = 2, 16
_GRAB_MODE_ASYNC = 1
_KEY_PRESS = 2
_KEY_RELEASE = 3
_KEYSYMS = {"Space": 0x20, "Enter": 0xFF0D, "Tab": 0xFF09, "Escape": 0xFF1B, "Backspace": 0xFF08}


class _Cookie(Structure):
    _fields_ = [("sequence", c_uint)]


class _ScreenIterator(Structure):
    _fields_ = [("data", POINTER(c_uint32)), ("rem", c_int), ("index", c_int)]


def keysym_of(key: str) -> int:
    if key in _KEYSYMS:
        return _KEYSYMS[key]
    if len(key) == 1:
        return ord(key.lower())
    return 0xFFBE + int(key[1:]) - 1  # F1…F12


def _libs() -> tuple[ctypes.CDLL, ctypes.CDLL, ctypes.CDLL]:
    xcb = ctypes.CDLL(ctypes.util.find_library("xcb") or "libxcb.so.1")
    keysyms = ctypes.CDLL(ctypes.util.find_library("xcb-keysyms") or "libxcb-keysyms.so.1")
    libc = ctypes.CDLL(None)
    xcb.xcb_connect.restype = c_void_p
    xcb.xcb_connect.argtypes = [c_char_p, POINTER(c_int)]
    xcb.xcb_connection_has_error.argtypes = [c_void_p]
    xcb.xcb_get_setup.restype = c_void_p
    xcb.xcb_get_setup.argtypes = [c_void_p]
    xcb.xcb_setup_roots_iterator.restype = _ScreenIterator
    xcb.xcb_setup_roots_iterator.argtypes = [c_void_p]
    xcb.xcb_screen_next.argtypes = [POINTER(_ScreenIterator)]
    xcb.xcb_grab_key_checked.restype = _Cookie
    xcb.xcb_grab_key_checked.argtypes = [c_void_p, c_uint8, c_uint32, c_uint16, c_uint8, c_uint8, c_uint8]
    xcb.xcb_ungrab_key.restype = _Cookie
    xcb.xcb_ungrab_key.argtypes = [c_void_p, c_uint8, c_uint32, c_uint16]
    xcb.xcb_request_check.restype = c_void_p
    xcb.xcb_request_check.argtypes = [c_void_p, _Cookie]
    xcb.xcb_flush.argtypes = [c_void_p]
    xcb.xcb_get_file_descriptor.argtypes = [c_void_p]
    xcb.xcb_poll_for_event.restype = POINTER(c_uint8)
    xcb.xcb_poll_for_event.argtypes = [c_void_p]
    xcb.xcb_disconnect.argtypes = [c_void_p]
    keysyms.xcb_key_symbols_alloc.restype = c_void_p
    keysyms.xcb_key_symbols_alloc.argtypes = [c_void_p]
    keysyms.xcb_key_symbols_get_keycode.restype = POINTER(c_uint8)
    keysyms.xcb_key_symbols_get_keycode.argtypes = [c_void_p, c_uint32]
    keysyms.xcb_key_symbols_free.argtypes = [c_void_p]
    libc.free.argtypes = [c_void_p]
    return xcb, keysyms, libc


class X11Hotkey:
    def __init__(self, display: str) -> None:
        self._display = display
        self._lock = threading.Lock()
        self._conn: int | None = None
        self._root = 0
        self._grabs: list[tuple[int, int]] = []  # (keycode, modifiers)
        self._callback: Callable[[], None] | None = None
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = -1, -1
        self._released_at = -1  # X time of the last key release (auto-repeat detection)
        try:
            self._xcb, self._keysyms, self._libc = _libs()
        except OSError as exc:
            self._xcb = None  # type: ignore[assignment]
            self._error = f"the X11 libraries could not be loaded ({exc})"
        else:
            self._error = ""

    def register(self, binding: Binding, callback: Callable[[], None]) -> HotkeyStatus:
        with self._lock:
            if self._xcb is None:
                return HotkeyStatus(False, self._error)
            if self._conn is None and not self._connect():
                return HotkeyStatus(False, self._error)
            self._ungrab_all()
            keycodes = self._keycodes(keysym_of(binding.key))
            if not keycodes:
                return HotkeyStatus(False, f"the key {binding.key} does not exist on this keyboard layout")
            base = sum(_MASKS[m] for m in binding.modifiers)
            for keycode in keycodes[:1]:
                for extra in (0, _LOCK, _NUM_LOCK, _LOCK | _NUM_LOCK):
                    if not self._grab(keycode, base | extra):
                        self._ungrab_all()
                        return HotkeyStatus(False, f"another program already uses {binding}")
            self._callback = callback
            return HotkeyStatus(True)

    def _connect(self) -> bool:
        screen = c_int(0)
        conn = self._xcb.xcb_connect(self._display.encode(), ctypes.byref(screen))
        if not conn or self._xcb.xcb_connection_has_error(conn):
            self._error = f"cannot connect to the X display {self._display}"
            if conn:
                self._xcb.xcb_disconnect(conn)
            return False
        iterator = self._xcb.xcb_setup_roots_iterator(self._xcb.xcb_get_setup(conn))
        for _ in range(screen.value):  # the default screen's root window
            self._xcb.xcb_screen_next(ctypes.byref(iterator))
        self._root = int(iterator.data[0])
        self._conn = conn
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._loop, name="hotkey-x11", daemon=True)
        self._thread.start()
        return True

    def _keycodes(self, keysym: int) -> list[int]:
        symbols = self._keysyms.xcb_key_symbols_alloc(self._conn)
        try:
            found = self._keysyms.xcb_key_symbols_get_keycode(symbols, keysym)
            codes: list[int] = []
            if found:
                i = 0
                while found[i] != 0:
                    codes.append(int(found[i]))
                    i += 1
                self._libc.free(ctypes.cast(found, c_void_p))
            return codes
        finally:
            self._keysyms.xcb_key_symbols_free(symbols)

    def _grab(self, keycode: int, modifiers: int) -> bool:
        cookie = self._xcb.xcb_grab_key_checked(
            self._conn, 1, self._root, modifiers, keycode, _GRAB_MODE_ASYNC, _GRAB_MODE_ASYNC
        )
        error = self._xcb.xcb_request_check(self._conn, cookie)
        if error:
            self._libc.free(error)
            return False
        self._grabs.append((keycode, modifiers))
        return True

    def _ungrab_all(self) -> None:
        for keycode, modifiers in self._grabs:
            self._xcb.xcb_ungrab_key(self._conn, keycode, self._root, modifiers)
        self._grabs.clear()
        self._xcb.xcb_flush(self._conn)

    def _loop(self) -> None:
        fd = self._xcb.xcb_get_file_descriptor(self._conn)
        while True:
            ready, _, _ = select.select([fd, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            while True:
                with self._lock:
                    if self._conn is None:
                        return
                    event = self._xcb.xcb_poll_for_event(self._conn)
                if not event:
                    break
                kind = event[0] & 0x7F
                stamp = int(ctypes.cast(event, POINTER(c_uint32))[1])  # the event's X time
                self._libc.free(ctypes.cast(event, c_void_p))
                if kind == _KEY_RELEASE:
                    self._released_at = stamp
                elif kind == _KEY_PRESS and stamp != self._released_at:
                    # A held key auto-repeats as release+press pairs with one timestamp: only a
                    # real press (a new time) toggles the window.
                    self._fire()

    def _fire(self) -> None:
        if self._callback is None:
            return
        try:
            self._callback()
        except Exception:
            log.exception("hotkey callback failed")

    def close(self) -> None:
        with self._lock:
            if self._conn is None:
                return
            self._ungrab_all()
            os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(2.0)
        with self._lock:
            self._xcb.xcb_disconnect(self._conn)
            self._conn = None
            os.close(self._wake_r)
            os.close(self._wake_w)
