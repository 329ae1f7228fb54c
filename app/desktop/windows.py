"""The two pywebview windows: the main window and the Quick Ask window (tech-notes §3.1).

Both load the same Vue bundle and share one js_api bridge; each gets its own event pusher
(app/desktop/main.py) so every event reaches both pages. Size and position of each are saved in
their own file in the data dir.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.desktop import strict_csp
from app.desktop.assets import missing_ui_page
from app.desktop.bridge import Bridge
from app.desktop.window_state import FILE_NAME as MAIN_STATE_FILE
from app.desktop.window_state import (
    MIN_SIZE,
    WindowState,
    WindowStateTracker,
    load_window_state,
    save_window_state,
)
from app.settings.paths import AppPaths

log = logging.getLogger(__name__)

QUICK_TITLE = "CashCode Quick Ask"
QUICK_STATE_FILE = "quick-window-state.json"
QUICK_DEFAULT = WindowState(width=620, height=420)
QUICK_MIN_SIZE = (420, 260)
QUICK_ROUTE = "#/quick"


@dataclass
class TrackedWindow:
    window: Any
    tracker: WindowStateTracker
    state_path: Path

    def save(self) -> None:
        try:
            save_window_state(self.state_path, self.tracker.snapshot())
        except OSError as exc:
            log.warning("could not save window state %s: %s", self.state_path.name, exc)


def create_main_window(paths: AppPaths, index: Path, bridge: Bridge) -> TrackedWindow:
    import webview

    state_path = paths.data_dir / MAIN_STATE_FILE
    state = load_window_state(state_path)
    source: dict[str, str] = {"url": str(index)} if index.is_file() else {"html": missing_ui_page(index)}
    window = webview.create_window(
        "CashCode",
        js_api=bridge,
        width=state.width,
        height=state.height,
        x=state.x,
        y=state.y,
        maximized=state.maximized,
        min_size=MIN_SIZE,
        background_color="#FFFFFF",
        **source,  # type: ignore[arg-type]
    )
    assert window is not None
    return _tracked(window, bridge, state, state_path)


def create_quick_window(paths: AppPaths, index: Path, bridge: Bridge) -> TrackedWindow:
    """Created hidden at start-up so showing it later is instant; frameless and on top."""
    import webview

    state_path = paths.data_dir / QUICK_STATE_FILE
    state = load_window_state(state_path, QUICK_DEFAULT, QUICK_MIN_SIZE)
    window = webview.create_window(
        QUICK_TITLE,
        url=str(index) + QUICK_ROUTE,
        js_api=bridge,
        width=state.width,
        height=state.height,
        x=state.x,
        y=state.y,
        min_size=QUICK_MIN_SIZE,
        hidden=True,
        frameless=True,
        easy_drag=False,  # the page has a drag handle; text must stay selectable
        on_top=True,
        background_color="#FFFFFF",
    )
    assert window is not None
    return _tracked(window, bridge, state, state_path)


def _tracked(window: Any, bridge: Bridge, state: WindowState, state_path: Path) -> TrackedWindow:
    strict_csp.install(window, strict_csp.public_methods(bridge))
    tracker = WindowStateTracker(state)
    tracker.attach(window)
    return TrackedWindow(window, tracker, state_path)
