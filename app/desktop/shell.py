"""The desktop shell: the two windows and what the tray, hotkey, second launches, notifications
and the pages ask of them (show, hide, focus, open a chat or the Inbox, quit).

Every public method is thread-safe and returns at once: the work is queued on ONE
`desktop-actions` thread, so requests keep their order, and nothing here ever runs `run_js` or
waits for the GUI on the GUI thread (tech-notes §1.4) or blocks the core loop.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from app.desktop import startup_marks
from app.desktop.launch_args import LaunchRequest
from app.desktop.pusher import DEFAULT_INTERVAL_S, EventPusher
from app.desktop.window_ops import WindowOps

log = logging.getLogger(__name__)

PAGE_WAIT_S = 60.0
APP_WAIT_S = 60.0
# The Quick Ask window's pusher paces like the main one's while it shows, and in a few calls a
# second while it is hidden (EventPusher.set_interval says why).
VISIBLE_PUSH_S = DEFAULT_INTERVAL_S
HIDDEN_PUSH_S = 0.25
# The Quick Ask window waits for the main page at most this long before it is created anyway.
QUICK_DELAY_MAX_S = 10.0
_STOP: Final = object()


@dataclass
class ShellWindow:
    window: Any
    pusher: EventPusher
    loaded: threading.Event = field(default_factory=threading.Event)

    def attach(self) -> None:
        self.window.events.loaded += self.loaded.set

    def wait_created(self) -> bool:
        """At start-up a request can come before the GUI made the window (pywebview fires
        `shown` on creation for a hidden window too); nothing can be shown before that."""
        return bool(self.window.events.shown.wait(PAGE_WAIT_S))


@dataclass
class AppLink:
    """The built app and its loop, once they exist (bridge calls wait for the same future)."""

    app: Any
    loop: asyncio.AbstractEventLoop

    def invoke(self, route: str, payload: dict[str, Any], timeout_s: float = 10.0) -> dict[str, Any]:
        future = asyncio.run_coroutine_threadsafe(self.app.invoke(route, payload), self.loop)
        result: dict[str, Any] = future.result(timeout_s)
        return result

    def publish(self, event: Any) -> None:
        self.loop.call_soon_threadsafe(self.app.bus.publish, event)


QuickFactory = Callable[[], ShellWindow | None]
"""Creates the Quick Ask window (on the actions thread, once the main page has loaded)."""


class DesktopShell:
    def __init__(
        self,
        ops: WindowOps,
        main: ShellWindow,
        quick: ShellWindow | None,
        make_quick: QuickFactory | None = None,
    ) -> None:
        self.ops = ops
        self.main = main
        self.quick = quick
        self._make_quick = make_quick
        self._quick_lock = threading.Lock()  # creating it vs. the main window closing
        self._after_paint: list[Callable[[], None]] = []
        self.quick_chat_id: str | None = None  # reported by the Quick Ask page
        self.quitting = threading.Event()
        self._destroy_lock = threading.Lock()
        self._destroyed: set[int] = set()  # id() of windows already destroyed
        self.tray_available = False  # set by the tray set-up; decides what closing does
        self.on_first_hide: Callable[[], None] | None = None  # the tray's "still running" hint
        self.close_to_tray: Callable[[], bool] = lambda: True  # reads the setting
        self._app: AppLink | None = None
        self._app_ready = threading.Event()
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="desktop-actions", daemon=True)
        if quick is not None:
            quick.pusher.set_interval(HIDDEN_PUSH_S)  # it starts hidden

    # ---- life cycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self.main.attach()
        if self.quick is not None:
            self.quick.attach()
        self.submit(self._after_main_loaded)  # first job: every quick request comes after it
        self._thread.start()

    def after_first_paint(self, job: Callable[[], None]) -> None:
        """Run `job` on the actions thread once the main page has loaded (call before `start`)."""
        self._after_paint.append(job)

    def stop(self, timeout_s: float = 2.0) -> None:
        self._queue.put(_STOP)
        self._thread.join(timeout_s)

    def attach_app(self, app: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._app = AppLink(app, loop)
        self._app_ready.set()

    def app_link(self, timeout_s: float = APP_WAIT_S) -> AppLink | None:
        self._app_ready.wait(timeout_s)
        return self._app

    def submit(self, job: Callable[[], None]) -> None:
        """Run `job` on the actions thread (in order with every other request)."""
        self._queue.put(job)

    # ---- requests (any thread) -----------------------------------------------------------------

    def handle_launch(self, request: LaunchRequest) -> None:
        """A launch (this one at start-up, or a later one forwarded here)."""
        if request.quick_ask:
            self.show_quick(request.quick_text)
        else:
            self.show_main()
        if request.import_skill:  # after showing: at start-up this waits for the app to exist
            self.submit(lambda: self._import_skill(request.import_skill or ""))
        if request.open_bundle:
            self.submit(lambda: self._open_bundle(request.open_bundle or ""))

    def show_main(self, chat_id: str | None = None) -> None:
        self.submit(lambda: self._show_main(chat_id))

    def show_quick(self, text: str | None = None) -> None:
        self.submit(lambda: self._show_quick(text))

    def show_inbox(self, item_id: str | None = None) -> None:
        """The tray's Inbox entry or an Inbox notification: the main window shows the Inbox,
        on `item_id` when one is given (issue 35)."""
        self.submit(lambda: self._show_inbox(item_id))

    def toggle_quick(self) -> None:
        self.submit(self._toggle_quick)

    def hide_quick(self) -> None:
        self.submit(self._hide_quick)

    def open_in_main(self, chat_id: str) -> None:
        """ "Continue in CashCode": the main window shows the chat; the quick window goes away."""

        def job() -> None:
            self._hide_quick()
            self._show_main(chat_id)

        self.submit(job)

    def quit(self) -> None:
        """End CashCode: every window closes, then `webview.start` returns and shutdown runs."""
        self.quitting.set()
        threading.Thread(target=self._destroy_all, name="quit", daemon=True).start()

    def on_main_closing(self) -> bool:
        """pywebview `closing` handler (GUI thread): False keeps the window (hidden to the tray)."""
        if self.quitting.is_set() or not self.tray_available or not self.close_to_tray():
            self.quitting.set()
            return True
        self.ops.post(lambda: self.ops.hide(self.main.window))
        if self.on_first_hide is not None:
            self.submit(self.on_first_hide)
        return False

    def on_quick_closing(self) -> bool:
        """The Quick Ask window is never closed by the window manager, only hidden (GUI thread)."""
        if self.quitting.is_set() or self.quick is None:
            return True
        window = self.quick.window
        self.ops.post(lambda: self.ops.hide(window))
        self.quick.pusher.set_interval(HIDDEN_PUSH_S)
        return False

    def on_main_closed(self) -> None:
        """The main window is gone: close the quick window too, so the process can end."""
        with self._quick_lock:  # a quick window being created now is either seen here or not made
            self.quitting.set()
        if self.quick is not None:
            threading.Thread(target=self._destroy_once, args=(self.quick.window,), daemon=True).start()

    # ---- queries (worker threads only: they wait for the GUI thread) --------------------------

    def window_of(self, chat_id: str) -> Any:
        if self.quick is not None and chat_id == self.quick_chat_id:
            return self.quick.window
        return self.main.window

    def attended(self, chat_id: str) -> bool:
        """Is the window showing this chat visible and focused? (Then no notification.)"""
        window = self.window_of(chat_id)
        try:
            return self.ops.is_visible(window) and self.ops.is_active(window)
        except Exception:  # window gone while quitting: nobody to notify either
            return True

    # ---- actions thread ------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is _STOP:
                return
            try:
                job()  # type: ignore[operator]
            except Exception:  # one failed request must not stop the others
                log.exception("desktop action failed")

    def _after_main_loaded(self) -> None:
        """Start what the first paint does not need once the main page has loaded (bounded
        wait): the Quick Ask window, then the deferred jobs (the tray).

        Created earlier, the Quick Ask page loaded while the main one did and, on two cores,
        delayed the main window's first paint (docs/decisions.md). It still exists, hidden, a
        moment after the main window, so showing it stays as fast as before."""
        self.main.loaded.wait(QUICK_DELAY_MAX_S)
        if self._make_quick is not None:
            self._create_quick(self._make_quick)
        for job in self._after_paint:
            try:
                job()
            except Exception:  # one failed start-up job must not stop the others
                log.exception("deferred start-up job failed")

    def _create_quick(self, make: QuickFactory) -> None:
        with self._quick_lock:
            if self.quitting.is_set():
                return
            quick = make()
            if quick is None:
                return
            quick.pusher.set_interval(HIDDEN_PUSH_S)  # it starts hidden
            quick.attach()
            self.quick = quick

    def _show_main(self, chat_id: str | None) -> None:
        if self.quitting.is_set() or not self.main.wait_created():
            return
        self.ops.focus(self.main.window)
        if chat_id:
            self._command(self.main, {"action": "open_chat", "open_chat_id": chat_id})

    def _show_inbox(self, item_id: str | None) -> None:
        if self.quitting.is_set() or not self.main.wait_created():
            return
        self.ops.focus(self.main.window)
        self._command(self.main, {"action": "open_inbox", "open_item_id": item_id})

    def _show_quick(self, text: str | None) -> None:
        if self.quitting.is_set():
            return
        if self.quick is None:  # no quick window on this system: the main window instead
            self._show_main(None)
            return
        if not self.quick.wait_created():
            return
        started = time.perf_counter()
        self.quick.pusher.set_interval(VISIBLE_PUSH_S)
        self.ops.focus(self.quick.window)
        startup_marks.mark("quick_shown")
        log.debug("quick window shown in %.1f ms", (time.perf_counter() - started) * 1000)
        self._command(self.quick, {"action": "quick_opened", "text": text})

    def _toggle_quick(self) -> None:
        if (
            self.quick is not None
            and self.ops.is_visible(self.quick.window)
            and self.ops.is_active(self.quick.window)
        ):
            self._hide_quick()
        else:
            self._show_quick(None)

    def _hide_quick(self) -> None:
        if self.quick is not None:
            self.ops.hide(self.quick.window)
            self.quick.pusher.set_interval(HIDDEN_PUSH_S)

    def _command(self, target: ShellWindow, command: dict[str, Any]) -> None:
        """Push a `desktop_command` to one page (waiting, bounded, until it can receive it)."""
        if not target.loaded.wait(PAGE_WAIT_S):
            log.warning("page never loaded; dropped %s", command.get("action"))
            return
        target.pusher.emit({"type": "desktop_command", **command})

    def _import_skill(self, path: str) -> None:
        link = self.app_link()
        if link is None or not self.main.loaded.wait(PAGE_WAIT_S):
            log.warning("CashCode is not ready; the Skill import request for %s was dropped", path)
            return
        from app.contracts.events import ImportSkillRequested  # lazy: pydantic off the launch path

        link.publish(ImportSkillRequested(path=path))

    def _open_bundle(self, path: str) -> None:
        link = self.app_link()
        if link is None or not self.main.loaded.wait(PAGE_WAIT_S):
            log.warning("CashCode is not ready; the MCP Bundle request for %s was dropped", path)
            return
        from app.contracts.events import BundleOpenRequested  # lazy: pydantic off the launch path

        link.publish(BundleOpenRequested(path=path))

    def _destroy_all(self) -> None:
        windows = [self.main.window] + ([self.quick.window] if self.quick is not None else [])
        for window in windows:
            self._destroy_once(window)

    def _destroy_once(self, window: Any) -> None:
        """Quit and the main window's `closed` handler both close the Quick Ask window; a second
        destroy of the same window makes pywebview's Qt close handler fail (KeyError) and Qt abort."""
        with self._destroy_lock:
            if id(window) in self._destroyed:
                return
            self._destroyed.add(id(window))
        self._destroy(window)

    @staticmethod
    def _destroy(window: Any) -> None:
        try:
            window.destroy()
        except Exception as exc:  # already gone
            log.debug("destroy: %s", exc)
