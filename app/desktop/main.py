"""`cashcode desktop`: the pywebview window over the application API.

Threads: the GUI owns the main thread; one core thread runs the asyncio loop that owns the
app; pywebview runs each bridge call on its own thread; the pusher thread feeds events into
the page (docs/architecture.md, "Threads and loops").

Start-up overlaps the two slow halves: the core thread imports and builds the app while the
main thread starts Qt and Chromium loads the page in its own processes. Bridge calls that
arrive before the app is ready wait for it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from app.desktop import startup_marks, strict_csp
from app.desktop.app_start import (
    AppFactory,
    DesktopApp,
    close_app,
    default_factory,
    spawn,
    start_app,
    wire_app,
)
from app.desktop.assets import missing_ui_page, web_index
from app.desktop.bridge import Bridge, PendingCalls
from app.desktop.core_loop import CoreLoop
from app.desktop.dialogs import PICK_FOLDER_ROUTE
from app.desktop.local_port import free_loopback_port
from app.desktop.pusher import EventPusher
from app.desktop.qt_setup import create_qt_application, prepare_qt_environment, uses_qt
from app.desktop.window_state import FILE_NAME as WINDOW_STATE_FILE
from app.desktop.window_state import MIN_SIZE, WindowStateTracker, load_window_state, save_window_state
from app.settings.paths import AppPaths

log = logging.getLogger(__name__)

CLOSE_TIMEOUT_S = 10.0
SWITCH_INTERVAL_S = 0.001


@dataclass
class _Session:
    """Everything the shutdown path must undo, in one place."""

    core: CoreLoop
    app_task: asyncio.Future[DesktopApp] | None = None
    window_shown: threading.Event = field(default_factory=threading.Event)
    pusher: EventPusher | None = None
    bridge_calls: PendingCalls = field(default_factory=PendingCalls)
    tracker: WindowStateTracker | None = None
    state_path: Path | None = None
    problems: list[str] = field(default_factory=list)


def run(
    argv: list[str] | None = None, *, app_factory: AppFactory | None = None, index: Path | None = None
) -> int:
    """Open the main window and block until it is closed. Returns the process exit code.

    `app_factory` and `index` (the page to load) exist for window tests; normally the real
    app and the bundled UI are used."""
    startup_marks.mark("run")
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    problem = display_problem(sys.platform, os.environ)
    if problem is not None:
        print(f"cashcode desktop: {problem}", file=sys.stderr)
        return 1
    paths = AppPaths.from_env(os.environ).ensure()
    prepare_qt_environment(os.environ)  # before any Qt import creates Chromium
    # The GUI thread, pywebview's asset server, bridge calls and the pusher all need the GIL
    # briefly and often, while the core thread may hold it for long stretches (imports, JSON).
    # A 1 ms switch interval (default 5 ms) bounds how long those short jobs wait for it.
    sys.setswitchinterval(SWITCH_INTERVAL_S)

    session = _Session(core=CoreLoop())
    session.core.start()
    building = start_app(app_factory or default_factory, paths, os.environ, session.window_shown)
    session.app_task = session.core.run(spawn(building), 5.0)
    try:
        _open_window(session, paths, index or web_index())
    finally:
        _shutdown(session)
    if session.app_task.done() and not session.app_task.cancelled() and session.app_task.exception():
        return 1
    return 0 if not session.problems else 2


def display_problem(platform: str, env: Mapping[str, str]) -> str | None:
    """Qt aborts the process (SIGABRT, core dump) without a display; say what to do instead."""
    if not platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot open. "
        "Use the same app in a browser: `cashcode serve` prints a local address to open."
    )


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="cashcode desktop", description="Open the CashCode window.")
    parser.add_argument("--log-level", default=os.environ.get("CASHCODE_LOG_LEVEL", "WARNING").upper())
    return parser.parse_args(argv)


def _open_window(session: _Session, paths: AppPaths, index: Path) -> None:
    import webview  # lazy: importing pywebview costs time the CLI should not pay

    assert session.app_task is not None
    if uses_qt():
        create_qt_application(sys.argv[:1])

    session.state_path = paths.data_dir / WINDOW_STATE_FILE
    state = load_window_state(session.state_path)
    source: dict[str, str] = {"url": str(index)} if index.is_file() else {"html": missing_ui_page(index)}
    bridge = Bridge(
        session.app_task,
        session.core.loop,
        route_timeouts={PICK_FOLDER_ROUTE: None},
        calls=session.bridge_calls,
    )
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
    window.events.shown += session.window_shown.set
    strict_csp.install(window, strict_csp.public_methods(bridge))
    from app.desktop import dnd  # Skill drops anywhere on the window (app/desktop/dnd.py)
    dnd.install(window, session.core.loop, session.app_task)
    startup_marks.attach(window)
    session.tracker = WindowStateTracker(state)
    session.tracker.attach(window)
    session.pusher = EventPusher(window)
    session.pusher.start()
    session.core.run(spawn(wire_app(session.app_task, window, session.pusher)), 5.0)
    _close_window_on_sigterm(window)
    webview.start(
        gui="qt" if uses_qt() else None,
        private_mode=False,  # a persistent profile (HTTP cache, etc.) in the data dir
        storage_path=str(paths.data_dir / "webview"),
        http_port=free_loopback_port(),  # not pywebview's fixed 42001: see local_port.py
    )


def _close_window_on_sigterm(window: Any) -> None:
    """`kill <pid>` (logout, service managers) closes the window like the close button does.

    The handler runs on the GUI thread; destroy() is handed to a worker so the GUI thread
    never waits on itself."""

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        threading.Thread(target=window.destroy, name="close-on-signal", daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)


def _shutdown(session: _Session) -> None:
    """Window closed: stop pushing, close the app (cancels turns, kills children), join."""
    if session.pusher is not None and not session.pusher.stop(timeout_s=1.0):
        # A run_js that was in flight when the window died never returns (its reply would come
        # from the destroyed page). The thread is a daemon, so abandoning it is harmless.
        log.info("the pusher was still waiting on the closed window; abandoned")
    session.bridge_calls.close()  # no call thread may outlive the core loop (they are not daemons)
    if session.app_task is not None:
        try:
            session.core.run(close_app(session.app_task, CLOSE_TIMEOUT_S), CLOSE_TIMEOUT_S + 1)
        except TimeoutError:
            session.problems.append("closing the app timed out")
    if not session.core.stop():
        session.problems.append("core thread did not stop")
    if session.tracker is not None and session.state_path is not None:
        try:
            save_window_state(session.state_path, session.tracker.snapshot())
        except OSError as exc:
            log.warning("could not save window state: %s", exc)
    for problem in session.problems:
        log.warning("shutdown: %s", problem)
