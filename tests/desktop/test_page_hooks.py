"""Work that waits on a page never keeps the process alive once the window is gone.

pywebview runs `loaded` handlers (its real `Event`) and bridge calls on non-daemon threads. Here
the page never answers `run_js` (as when the window closed meanwhile): no non-daemon thread may
be left waiting on it, or the interpreter's exit would wait forever."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from webview.event import Event

from app.desktop import dnd, strict_csp
from tests.desktop.harness import wait_until


class _Events:
    def __init__(self, window: Any) -> None:
        self.loaded = Event(window)


class _Dom:
    def __init__(self) -> None:
        self._elements: dict[str, Any] = {}


class DeadPageWindow:
    """A window whose page never answers: `run_js` blocks until the test releases it."""

    def __init__(self) -> None:
        self.events = _Events(self)
        self.dom = _Dom()
        self.release = threading.Event()
        self.scripts: list[str] = []
        self.daemon_callers: list[bool] = []

    def run_js(self, script: str) -> None:
        self.scripts.append(script)
        self.daemon_callers.append(threading.current_thread().daemon)
        self.release.wait(30)

    def evaluate_js(self, script: str, callback: Any = None) -> None:
        self.run_js(script)


def _non_daemon_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if not t.daemon and t.is_alive() and t not in before]


def test_page_load_work_waiting_on_a_dead_page_runs_only_on_daemon_threads() -> None:
    window = DeadPageWindow()
    loop = asyncio.new_event_loop()
    app_task: asyncio.Future[Any] = loop.create_future()
    strict_csp.install(window, ["invoke"])
    dnd.install(window, loop, app_task)
    before = set(threading.enumerate())
    try:
        window.events.loaded.set()
        wait_until(lambda: len(window.scripts) == 2 and not _non_daemon_threads(before))
        assert len(window.scripts) == 2  # the bridge set-up and the drop handlers, both waiting
        assert window.daemon_callers == [True, True]
        assert _non_daemon_threads(before) == []  # pywebview's own event thread has finished
    finally:
        window.release.set()
        loop.close()


def test_a_bridge_reply_to_a_dead_page_does_not_hold_pywebviews_call_thread() -> None:
    window = DeadPageWindow()
    strict_csp.install(window, ["invoke"])
    reply = 'window.pywebview._returnValuesCallbacks["invoke"]["7"]({value: \'{"ok": true}\'})'
    call = threading.Thread(target=window.evaluate_js, args=(reply,))  # like js_bridge_call's thread
    try:
        call.start()
        call.join(5)
        assert not call.is_alive()  # it handed the reply over and ended
        wait_until(lambda: window.scripts)
        assert window.scripts == [reply]  # delivered as is (no eval), still waiting on the page
        assert window.daemon_callers == [True]
    finally:
        window.release.set()
