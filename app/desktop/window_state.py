"""Remember the main window's size, position and maximised flag in the data dir (SPEC S11.1)."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from app.support.atomic import atomic_write_text

log = logging.getLogger(__name__)

FILE_NAME = "window-state.json"
MIN_SIZE = (640, 480)
_MAX_SIDE = 16384


@dataclass(frozen=True)
class WindowState:
    width: int = 1200
    height: int = 800
    x: int | None = None  # None: let the window system place it
    y: int | None = None
    maximized: bool = False

    def sanitized(self, min_size: tuple[int, int] = MIN_SIZE) -> WindowState:
        """Clamp what a hand-edited or stale file could hold into something showable."""
        width = min(max(self.width, min_size[0]), _MAX_SIDE)
        height = min(max(self.height, min_size[1]), _MAX_SIDE)
        x, y = self.x, self.y
        if x is None or y is None or not (-_MAX_SIDE < x < _MAX_SIDE and -_MAX_SIDE < y < _MAX_SIDE):
            x = y = None
        return WindowState(width, height, x, y, bool(self.maximized))


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def load_window_state(
    path: Path, default: WindowState | None = None, min_size: tuple[int, int] = MIN_SIZE
) -> WindowState:
    """The saved state, or defaults when the file is missing or unreadable."""
    default = default or WindowState()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable window state %s: %s", path, exc)
        return default
    if not isinstance(raw, dict):
        return default
    return WindowState(
        width=_int_or_none(raw.get("width")) or default.width,
        height=_int_or_none(raw.get("height")) or default.height,
        x=_int_or_none(raw.get("x")),
        y=_int_or_none(raw.get("y")),
        maximized=raw.get("maximized") is True,
    ).sanitized(min_size)


def save_window_state(path: Path, state: WindowState) -> None:
    """Atomic write (temp file + fsync + replace), like every settings file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(asdict(state)))


class _EventfulWindow(Protocol):
    @property
    def events(self) -> Any: ...  # pywebview's EventContainer: resized, moved, maximized, ...


class WindowStateTracker:
    """Follows pywebview's window events (each fired on its own thread) into one snapshot.

    While maximised, size and position events describe the maximised frame, so they are not
    recorded: the restored geometry is what the next launch should use.
    """

    def __init__(self, initial: WindowState) -> None:
        self._lock = threading.Lock()
        self._state = initial

    def attach(self, window: _EventfulWindow) -> None:
        window.events.resized += self._on_resized
        window.events.moved += self._on_moved
        window.events.maximized += self._on_maximized
        window.events.restored += self._on_restored

    def snapshot(self) -> WindowState:
        with self._lock:
            return self._state

    def _on_resized(self, width: int, height: int) -> None:
        with self._lock:
            if not self._state.maximized:
                self._state = replace(self._state, width=width, height=height)

    def _on_moved(self, x: int, y: int) -> None:
        with self._lock:
            if not self._state.maximized:
                self._state = replace(self._state, x=x, y=y)

    def _on_maximized(self) -> None:
        with self._lock:
            self._state = replace(self._state, maximized=True)

    def _on_restored(self) -> None:
        with self._lock:
            self._state = replace(self._state, maximized=False)
