"""`cashcode desktop`: the pywebview window over the application API.

Threads: the GUI owns the main thread; one core thread runs the asyncio loop that owns the
app; pywebview runs each bridge call on its own thread; one pusher thread per window feeds
events into its page; the shell's actions thread shows/hides windows for the tray, hotkey,
forwarded launches and notifications (docs/architecture.md, "Threads and loops").

`cashcode desktop` enters through app/desktop/launch.py, which forwards to a running instance
before this module (Qt, pywebview, the app) is imported.

Start-up: the main thread starts Qt and Chromium loads the page in its own processes; the
core thread imports and builds the app once that page has loaded (app_start.start_app says
why). Bridge calls that arrive before the app is ready wait for it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from app.desktop import exit_guard, startup_marks
from app.desktop.app_start import (
    AppFactory,
    DesktopApp,
    close_app,
    default_factory,
    spawn,
    start_app,
    wire_app,
)
from app.desktop.assets import web_index
from app.desktop.bridge import Bridge, PendingCalls
from app.desktop.core_loop import CoreLoop
from app.desktop.dialogs import PICK_FILE_ROUTE, PICK_FOLDER_ROUTE
from app.desktop.launch_args import LaunchArgsError, LaunchRequest, forwarded_argv, parse, parse_forwarded
from app.desktop.local_port import free_loopback_port
from app.desktop.presence import Presence
from app.desktop.pusher import EventPusher
from app.desktop.qt_setup import (
    create_qt_application,
    place_pipeline_cache,
    prepare_qt_environment,
    uses_qt,
)
from app.desktop.render_backend import choose_quick_backend
from app.desktop.shell import DesktopShell, ShellWindow
from app.desktop.single_instance import Primary, acquire, endpoint_for
from app.desktop.window_ops import PlainWindowOps, QtWindowOps, WindowOps
from app.desktop.windows import TrackedWindow, create_main_window, create_quick_window
from app.settings.paths import AppPaths

log = logging.getLogger(__name__)

CLOSE_TIMEOUT_S = 10.0
SWITCH_INTERVAL_S = 0.001


@dataclass
class _Session:
    """Everything the shutdown path must undo, in one place."""

    core: CoreLoop
    app_task: asyncio.Future[DesktopApp] | None = None
    page_loaded: threading.Event = field(default_factory=threading.Event)
    pushers: list[EventPusher] = field(default_factory=list)
    bridge_calls: PendingCalls = field(default_factory=PendingCalls)
    windows: list[TrackedWindow] = field(default_factory=list)  # their size/position is saved
    inbox: LaunchInbox = field(default_factory=lambda: LaunchInbox())
    primary: Primary | None = None
    shell: DesktopShell | None = None
    presence: Presence | None = None
    qt_app: Any = None
    problems: list[str] = field(default_factory=list)


class LaunchInbox:
    """Requests forwarded by later launches; kept until the shell exists, then handed over."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._early: list[LaunchRequest] = []
        self._shell: DesktopShell | None = None

    def receive(self, argv: list[str]) -> None:  # single-instance listener thread
        request = parse_forwarded(argv)
        with self._lock:
            if self._shell is None:
                self._early.append(request)
                return
            shell = self._shell
        shell.handle_launch(request)

    def attach(self, shell: DesktopShell) -> None:
        with self._lock:
            self._shell = shell
            early, self._early = self._early, []
        for request in early:
            shell.handle_launch(request)


def run(
    argv: list[str] | None = None, *, app_factory: AppFactory | None = None, index: Path | None = None
) -> int:
    """Open the main window and block until it is closed. Returns the process exit code.

    `app_factory` and `index` (the page to load) exist for window tests; normally the real
    app and the bundled UI are used."""
    startup_marks.mark("run")
    try:
        args, request = parse(sys.argv[1:] if argv is None else argv)
    except LaunchArgsError as exc:
        print(f"cashcode desktop: {exc}", file=sys.stderr)
        return 2
    # JSON lines to the rotating file in the log folder (and stderr), secrets redacted (SPEC S9.2).
    from app.observability.cli_logging import configure

    problem = configure(args.log_level, os.environ)
    if problem is not None:
        print(f"cashcode desktop: {problem}", file=sys.stderr)
        return 2
    problem = display_problem(sys.platform, os.environ)
    if problem is not None:
        print(f"cashcode desktop: {problem}", file=sys.stderr)
        return 1
    paths = AppPaths.from_env(os.environ).ensure()
    session = _Session(core=CoreLoop())
    try:
        session.primary = acquire(endpoint_for(paths.data_dir, os.environ), forwarded_argv(request),
                                  session.inbox.receive)  # fmt: skip
    except OSError as exc:
        print(f"cashcode desktop: {exc}", file=sys.stderr)
        return 1
    if session.primary is None:
        startup_marks.mark("forwarded")
        return 0  # the running CashCode took the request
    prepare_qt_environment(os.environ)  # before any Qt import creates Chromium
    if uses_qt():
        place_pipeline_cache(os.environ, paths.cache_dir)
        choose_quick_backend(os.environ)  # no GPU: Qt Quick's software backend, not llvmpipe
    # The GUI thread, pywebview's asset server, bridge calls and the pusher all need the GIL
    # briefly and often, while the core thread may hold it for long stretches (imports, JSON).
    # A 1 ms switch interval (default 5 ms) bounds how long those short jobs wait for it.
    sys.setswitchinterval(SWITCH_INTERVAL_S)

    session.core.start()
    building = start_app(app_factory or default_factory, paths, os.environ, session.page_loaded)
    session.app_task = session.core.run(spawn(building), 5.0)
    try:
        _open_windows(session, paths, index, request)
    finally:
        _shutdown(session)
    failed = session.app_task.done() and not session.app_task.cancelled() and session.app_task.exception()
    code = 1 if failed else 0 if not session.problems else 2
    exit_guard.leave_if_stuck(code)  # a pywebview thread stuck on a closed page must not keep us alive
    return code


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


def _open_windows(session: _Session, paths: AppPaths, index: Path | None, request: LaunchRequest) -> None:
    """Create the windows, the shell around them and the tray, then run the GUI until quit."""
    import webview  # lazy: importing pywebview costs time the CLI should not pay

    assert session.app_task is not None
    ops: WindowOps
    if uses_qt():
        # Kept referenced: PyQt destroys a QApplication whose Python wrapper is collected.
        session.qt_app = create_qt_application(sys.argv[:1], paths.data_dir, paths.cache_dir)
        ops = QtWindowOps()  # on the GUI thread, after the QApplication
    else:
        ops = PlainWindowOps()
    bridge = Bridge(
        session.app_task,
        session.core.loop,
        route_timeouts={PICK_FOLDER_ROUTE: None, PICK_FILE_ROUTE: None},
        calls=session.bridge_calls,
    )
    shell = _create_shell(session, paths, index, bridge, ops)
    from app.desktop import dnd  # Skill drops anywhere on the main window (app/desktop/dnd.py)

    dnd.install(shell.main.window, session.core.loop, session.app_task)
    session.presence = Presence(shell, paths, os.environ)
    presence = session.presence
    # The tray is not needed for the first paint: it starts (on the GUI thread) once the main
    # page has loaded, like the Quick Ask window (DesktopShell._after_main_loaded).
    shell.after_first_paint(lambda: ops.post(lambda: presence.start_tray(ops.post)))
    shell.after_first_paint(lambda: _trim_when_settled(shell))
    shell.start()
    # The main window's pusher only: the Quick Ask one subscribes itself when it is made.
    wiring = wire_app(session.app_task, shell.main.window, list(session.pushers), _on_app_ready(session))
    session.core.run(spawn(wiring), 5.0)
    session.inbox.attach(shell)
    shell.handle_launch(request)
    _close_window_on_sigterm(shell)
    webview.start(
        gui="qt" if uses_qt() else None,
        private_mode=False,  # a persistent profile (HTTP cache, etc.) in the data dir
        storage_path=str(paths.data_dir / "webview"),
        http_port=free_loopback_port(),  # not pywebview's fixed 42001: see local_port.py
    )


def _create_shell(
    session: _Session, paths: AppPaths, index: Path | None, bridge: Bridge, ops: WindowOps
) -> DesktopShell:
    """The main window (with its pusher) and the shell, which creates the hidden Quick Ask
    window once the main page has loaded (DesktopShell._create_quick says why).

    Test pages passed as `index` get no Quick Ask window: it loads the bundled UI's `#/quick`.
    CASHCODE_QUICK_WINDOW=0 leaves it out too (memory comparisons in bench/)."""
    main = create_main_window(paths, index or web_index(), bridge)
    session.windows.append(main)
    main.window.events.loaded += session.page_loaded.set  # opens the app build's gate
    startup_marks.attach(main.window)
    main_shell = ShellWindow(main.window, _pusher(session, main.window, "js-pusher"))
    wanted = os.environ.get("CASHCODE_QUICK_WINDOW", "1") != "0"
    make_quick = None
    if wanted and index is None and web_index().is_file():
        make_quick = _quick_factory(session, paths, bridge)
    shell = DesktopShell(ops, main_shell, None, make_quick)
    session.shell = shell
    main.window.events.closing += shell.on_main_closing
    main.window.events.closed += shell.on_main_closed
    return shell


def _quick_factory(session: _Session, paths: AppPaths, bridge: Bridge) -> Callable[[], ShellWindow]:
    """Runs on the shell's actions thread after `webview.start`: pywebview then creates the
    window at once (on the GUI thread, through its own signal)."""

    def make() -> ShellWindow:
        assert session.shell is not None and session.app_task is not None
        quick = create_quick_window(paths, web_index(), bridge)
        session.windows.append(quick)
        pusher = _pusher(session, quick.window, "js-pusher-quick")
        quick.window.events.closing += session.shell.on_quick_closing
        session.core.loop.call_soon_threadsafe(_subscribe_when_built, session.app_task, pusher)
        return ShellWindow(quick.window, pusher)

    return make


def _subscribe_when_built(app_task: asyncio.Future[DesktopApp], pusher: EventPusher) -> None:
    """On the core loop: feed the app's events to a pusher made after `wire_app` ran (or
    before the app exists: then when it does)."""

    def subscribe(task: asyncio.Future[DesktopApp]) -> None:
        if not task.cancelled() and task.exception() is None:
            task.result().bus.subscribe(pusher.emit)

    if app_task.done():
        subscribe(app_task)
    else:
        app_task.add_done_callback(subscribe)


def _trim_when_settled(shell: DesktopShell) -> None:
    """Once the app is built and the Quick Ask page has loaded, return the memory start-up
    freed to the OS (app/desktop/heap_trim.py)."""
    from app.desktop.heap_trim import trim_when_settled

    waits = [lambda timeout_s: shell.app_link(timeout_s) is not None]
    if shell.quick is not None:
        waits.append(shell.quick.loaded.wait)
    trim_when_settled(waits)


def _pusher(session: _Session, window: Any, name: str) -> EventPusher:
    pusher = EventPusher(window, name=name)
    pusher.start()
    session.pushers.append(pusher)
    return pusher


def _on_app_ready(session: _Session) -> Any:
    def ready(app: DesktopApp) -> None:  # on the core loop
        assert session.shell is not None and session.presence is not None
        session.shell.attach_app(app, asyncio.get_running_loop())
        session.presence.attach_app(app)

    return ready


def _close_window_on_sigterm(shell: DesktopShell) -> None:
    """`kill <pid>` (logout, service managers) and SIGHUP (the terminal that started the app
    closed) quit like the tray's Quit: every window closes.

    The handler runs on the GUI thread; `quit` hands the closing to a worker so the GUI thread
    never waits on itself."""

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        shell.quit()

    signal.signal(signal.SIGTERM, on_signal)
    if hasattr(signal, "SIGHUP"):  # not on Windows
        signal.signal(signal.SIGHUP, on_signal)


def _shutdown(session: _Session) -> None:
    """Windows closed: stop listening for launches, the tray, hotkey and pushers, close the app
    (cancels turns, kills children), join."""
    if session.primary is not None:
        session.primary.close()
    if session.presence is not None:
        session.presence.close()
    if session.shell is not None:
        session.shell.stop()
    for pusher in session.pushers:
        if not pusher.stop(timeout_s=1.0):
            # A run_js that was in flight when the window died never returns (its reply would
            # come from the destroyed page). The thread is a daemon, so abandoning it is harmless.
            log.info("a pusher was still waiting on its closed window; abandoned")
    session.bridge_calls.close()  # no call thread may outlive the core loop (they are not daemons)
    if session.app_task is not None:
        try:
            session.core.run(close_app(session.app_task, CLOSE_TIMEOUT_S), CLOSE_TIMEOUT_S + 1)
        except TimeoutError:
            session.problems.append("closing the app timed out")
    if not session.core.stop():
        session.problems.append("core thread did not stop")
    for tracked in session.windows:
        tracked.save()
    for problem in session.problems:
        log.warning("shutdown: %s", problem)
