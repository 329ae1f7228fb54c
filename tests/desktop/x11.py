"""Close a window the way a window manager's close button does (WM_DELETE_WINDOW), with plain
ctypes Xlib so tests need no extra package. Xvfb has no window manager to click on."""

from __future__ import annotations

import ctypes
import ctypes.util
from ctypes import POINTER, byref, c_char_p, c_int, c_long, c_ubyte, c_uint, c_ulong, c_void_p

_CLIENT_MESSAGE = 33
_IS_VIEWABLE = 2
_XA_CARDINAL = 6


class _ClientMessage(ctypes.Structure):
    _fields_ = [
        ("type", c_int),
        ("serial", c_ulong),
        ("send_event", c_int),
        ("display", c_void_p),
        ("window", c_ulong),
        ("message_type", c_ulong),
        ("format", c_int),
        ("data", c_long * 5),
    ]


class _XEvent(ctypes.Union):
    _fields_ = [("xclient", _ClientMessage), ("pad", c_long * 24)]


class _WindowAttributes(ctypes.Structure):
    # Only the prefix up to map_state is read; the rest is padding we never touch.
    _fields_ = [
        ("x", c_int), ("y", c_int), ("width", c_int), ("height", c_int), ("border_width", c_int),
        ("depth", c_int), ("visual", c_void_p), ("root", c_ulong), ("c_class", c_int),
        ("bit_gravity", c_int), ("win_gravity", c_int), ("backing_store", c_int),
        ("backing_planes", c_ulong), ("backing_pixel", c_ulong), ("save_under", c_int),
        ("colormap", c_ulong), ("map_installed", c_int), ("map_state", c_int),
        ("rest", c_long * 16),
    ]  # fmt: skip


# Xlib's default error handler EXITS the process on any protocol error, e.g. BadWindow when a
# window (a menu, a message balloon) is destroyed between listing and querying it. In a test
# run that would silently end pytest, so errors are ignored instead: callers check statuses.
_ERROR_HANDLER_TYPE = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p)
_IGNORE_ERRORS = _ERROR_HANDLER_TYPE(lambda _display, _event: 0)
_LIB: ctypes.CDLL | None = None


def _xlib() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        _LIB = _load_xlib()
    return _LIB


def _load_xlib() -> ctypes.CDLL:
    name = ctypes.util.find_library("X11") or "libX11.so.6"
    lib = ctypes.CDLL(name)
    lib.XSetErrorHandler.restype = c_void_p
    lib.XSetErrorHandler.argtypes = [_ERROR_HANDLER_TYPE]
    lib.XSetErrorHandler(_IGNORE_ERRORS)
    lib.XOpenDisplay.restype = c_void_p
    lib.XOpenDisplay.argtypes = [c_char_p]
    lib.XDefaultRootWindow.restype = c_ulong
    lib.XDefaultRootWindow.argtypes = [c_void_p]
    lib.XInternAtom.restype = c_ulong
    lib.XInternAtom.argtypes = [c_void_p, c_char_p, c_int]
    lib.XQueryTree.argtypes = [c_void_p, c_ulong, POINTER(c_ulong), POINTER(c_ulong),
                               POINTER(POINTER(c_ulong)), POINTER(c_uint)]  # fmt: skip
    lib.XGetWindowProperty.argtypes = [c_void_p, c_ulong, c_ulong, c_long, c_long, c_int, c_ulong,
                                       POINTER(c_ulong), POINTER(c_int), POINTER(c_ulong),
                                       POINTER(c_ulong), POINTER(POINTER(c_ubyte))]  # fmt: skip
    lib.XGetWindowAttributes.argtypes = [c_void_p, c_ulong, POINTER(_WindowAttributes)]
    lib.XSendEvent.argtypes = [c_void_p, c_ulong, c_int, c_long, POINTER(_XEvent)]
    lib.XFree.argtypes = [c_void_p]
    lib.XFlush.argtypes = [c_void_p]
    lib.XCloseDisplay.argtypes = [c_void_p]
    return lib


def _children(lib: ctypes.CDLL, display: int, window: int) -> list[int]:
    root, parent, count = c_ulong(), c_ulong(), c_uint()
    kids = POINTER(c_ulong)()
    if not lib.XQueryTree(display, window, byref(root), byref(parent), byref(kids), byref(count)):
        return []
    found = [kids[i] for i in range(count.value)]
    if kids:
        lib.XFree(kids)
    return found


def _pid_of(lib: ctypes.CDLL, display: int, window: int, atom: int) -> int | None:
    kind, fmt, items, after = c_ulong(), c_int(), c_ulong(), c_ulong()
    data = POINTER(c_ubyte)()
    status = lib.XGetWindowProperty(display, window, atom, 0, 1, 0, _XA_CARDINAL, byref(kind), byref(fmt),
                                    byref(items), byref(after), byref(data))  # fmt: skip
    try:
        if status != 0 or items.value < 1 or not data:
            return None
        return int(ctypes.cast(data, POINTER(c_ulong))[0])
    finally:
        if data:
            lib.XFree(data)


def _windows_of(lib: ctypes.CDLL, display: int, pid: int) -> list[int]:
    """Viewable top-level windows whose _NET_WM_PID is `pid`."""
    pid_atom = lib.XInternAtom(display, b"_NET_WM_PID", 0)
    found = []
    for window in _children(lib, display, lib.XDefaultRootWindow(display)):
        attrs = _WindowAttributes()
        if not lib.XGetWindowAttributes(display, window, byref(attrs)):
            continue  # gone since it was listed
        if attrs.map_state == _IS_VIEWABLE and _pid_of(lib, display, window, pid_atom) == pid:
            found.append(window)
    return found


def move_resize_windows_of(display_name: str, pid: int, x: int, y: int, width: int, height: int) -> int:
    """Move and resize `pid`'s windows as a user dragging them would. Returns how many."""
    lib = _xlib()
    lib.XMoveResizeWindow.argtypes = [c_void_p, c_ulong, c_int, c_int, c_uint, c_uint]
    display = lib.XOpenDisplay(display_name.encode())
    if not display:
        raise RuntimeError(f"cannot open X display {display_name}")
    try:
        windows = _windows_of(lib, display, pid)
        for window in windows:
            lib.XMoveResizeWindow(display, window, x, y, width, height)
        lib.XFlush(display)
        return len(windows)
    finally:
        lib.XCloseDisplay(display)


def windows_of(display_name: str, pid: int) -> list[int]:
    """`pid`'s viewable top-level windows, bottom to top (a dialog comes after its parent)."""
    lib = _xlib()
    display = lib.XOpenDisplay(display_name.encode())
    if not display:
        raise RuntimeError(f"cannot open X display {display_name}")
    try:
        return _windows_of(lib, display, pid)
    finally:
        lib.XCloseDisplay(display)


def close_windows_of(display_name: str, pid: int, only: int | None = None) -> int:
    """Send WM_DELETE_WINDOW to every viewable top-level window of `pid` (or just `only`).
    Returns how many got it."""
    lib = _xlib()
    display = lib.XOpenDisplay(display_name.encode())
    if not display:
        raise RuntimeError(f"cannot open X display {display_name}")
    try:
        protocols = lib.XInternAtom(display, b"WM_PROTOCOLS", 0)
        delete = lib.XInternAtom(display, b"WM_DELETE_WINDOW", 0)
        windows = [w for w in _windows_of(lib, display, pid) if only is None or w == only]
        for window in windows:
            event = _XEvent()
            event.xclient.type = _CLIENT_MESSAGE
            event.xclient.window = window
            event.xclient.message_type = protocols
            event.xclient.format = 32
            event.xclient.data[0] = delete
            lib.XSendEvent(display, window, 0, 0, byref(event))
        lib.XFlush(display)
        return len(windows)
    finally:
        lib.XCloseDisplay(display)


def _parent_of(lib: ctypes.CDLL, display: int, window: int) -> int:
    root, parent, count = c_ulong(), c_ulong(), c_uint()
    kids = POINTER(c_ulong)()
    lib.XQueryTree(display, window, byref(root), byref(parent), byref(kids), byref(count))
    if kids:
        lib.XFree(kids)
    return int(parent.value)


def _title_of(lib: ctypes.CDLL, display: int, window: int) -> str:
    """_NET_WM_NAME (UTF-8), which Qt sets on every top-level window."""
    name_atom = lib.XInternAtom(display, b"_NET_WM_NAME", 0)
    utf8 = lib.XInternAtom(display, b"UTF8_STRING", 0)
    kind, fmt, items, after = c_ulong(), c_int(), c_ulong(), c_ulong()
    data = POINTER(c_ubyte)()
    status = lib.XGetWindowProperty(display, window, name_atom, 0, 1024, 0, utf8, byref(kind), byref(fmt),
                                    byref(items), byref(after), byref(data))  # fmt: skip
    try:
        if status != 0 or not data:
            return ""
        return bytes(data[: items.value]).decode("utf-8", "replace")
    finally:
        if data:
            lib.XFree(data)


def titled_windows_of(display_name: str, pid: int) -> dict[str, int]:
    """`pid`'s viewable top-level windows by title (e.g. "CashCode Quick Ask")."""
    lib = _xlib()
    display = lib.XOpenDisplay(display_name.encode())
    if not display:
        raise RuntimeError(f"cannot open X display {display_name}")
    try:
        return {_title_of(lib, display, w): w for w in _windows_of(lib, display, pid)}
    finally:
        lib.XCloseDisplay(display)


def tray_icon_center(display_name: str, pid: int) -> tuple[int, int] | None:
    """Where `pid`'s tray icon is on screen: its window was embedded (reparented) into the tray
    host, so it is the one window of `pid` that is not a child of the root window."""
    lib = _xlib()
    lib.XTranslateCoordinates.argtypes = [c_void_p, c_ulong, c_ulong, c_int, c_int,
                                          POINTER(c_int), POINTER(c_int), POINTER(c_ulong)]  # fmt: skip
    display = lib.XOpenDisplay(display_name.encode())
    if not display:
        raise RuntimeError(f"cannot open X display {display_name}")
    try:
        root = lib.XDefaultRootWindow(display)
        pid_atom = lib.XInternAtom(display, b"_NET_WM_PID", 0)
        stack = list(_children(lib, display, root))
        while stack:
            window = stack.pop()
            if _parent_of(lib, display, window) != root and _pid_of(lib, display, window, pid_atom) == pid:
                attrs = _WindowAttributes()
                if not lib.XGetWindowAttributes(display, window, byref(attrs)):
                    continue
                if attrs.map_state != _IS_VIEWABLE:
                    continue
                x, y, child = c_int(), c_int(), c_ulong()
                lib.XTranslateCoordinates(display, window, root, 0, 0, byref(x), byref(y), byref(child))
                return x.value + attrs.width // 2, y.value + attrs.height // 2
            stack.extend(_children(lib, display, window))
        return None
    finally:
        lib.XCloseDisplay(display)


def selection_owned(display_name: str, selection: bytes) -> bool:
    """Is the X selection (e.g. b"_NET_SYSTEM_TRAY_S0", a running tray host) owned?"""
    lib = _xlib()
    lib.XGetSelectionOwner.restype = c_ulong
    lib.XGetSelectionOwner.argtypes = [c_void_p, c_ulong]
    display = lib.XOpenDisplay(display_name.encode())
    if not display:
        raise RuntimeError(f"cannot open X display {display_name}")
    try:
        return bool(lib.XGetSelectionOwner(display, lib.XInternAtom(display, selection, 0)))
    finally:
        lib.XCloseDisplay(display)


def window_geometry(display_name: str, window: int) -> tuple[int, int, int, int]:
    """x, y (on the root window), width, height."""
    lib = _xlib()
    lib.XTranslateCoordinates.argtypes = [c_void_p, c_ulong, c_ulong, c_int, c_int,
                                          POINTER(c_int), POINTER(c_int), POINTER(c_ulong)]  # fmt: skip
    display = lib.XOpenDisplay(display_name.encode())
    if not display:
        raise RuntimeError(f"cannot open X display {display_name}")
    try:
        attrs = _WindowAttributes()
        if not lib.XGetWindowAttributes(display, window, byref(attrs)):
            raise RuntimeError(f"window {window:#x} is gone")
        x, y, child = c_int(), c_int(), c_ulong()
        root = lib.XDefaultRootWindow(display)
        lib.XTranslateCoordinates(display, window, root, 0, 0, byref(x), byref(y), byref(child))
        return x.value, y.value, attrs.width, attrs.height
    finally:
        lib.XCloseDisplay(display)


class XConnection:
    """One open X connection for tight polling (opening one per query costs milliseconds)."""

    def __init__(self, display_name: str) -> None:
        self._lib = _xlib()
        self._display = self._lib.XOpenDisplay(display_name.encode())
        if not self._display:
            raise RuntimeError(f"cannot open X display {display_name}")

    def titled_windows_of(self, pid: int) -> dict[str, int]:
        return {_title_of(self._lib, self._display, w): w for w in _windows_of(self._lib, self._display, pid)}

    def close(self) -> None:
        self._lib.XCloseDisplay(self._display)
