"""Show, hide, focus and query pywebview windows from any thread, without deadlocks.

pywebview's own `show()`/`hide()` only post a signal to the GUI thread, but it has no "raise and
focus" (its `restore()` also un-maximises) and no "is it visible / focused" query. On Qt we run
those few calls ON the GUI thread through a queued signal and wait for the answer from the
calling worker thread. The GUI thread itself never waits on anything here: callers on it (tray
menu, closing handlers) use the non-blocking `post`.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

GUI_CALL_TIMEOUT_S = 5.0


class WindowOps(Protocol):
    def focus(self, window: Any) -> None: ...
    def hide(self, window: Any) -> None: ...
    def is_visible(self, window: Any) -> bool: ...
    def is_active(self, window: Any) -> bool: ...
    def post(self, job: Callable[[], None]) -> None: ...


class QtWindowOps:
    """Must be created on the GUI thread after the QApplication exists."""

    def __init__(self) -> None:
        from qtpy import QtCore

        class _Invoker(QtCore.QObject):
            call = QtCore.Signal(object)

        self._gui_thread = threading.current_thread()
        self._invoker = _Invoker()
        # Emitted from another thread, a signal to an object of the GUI thread is queued there.
        self._invoker.call.connect(lambda job: job())

    def post(self, job: Callable[[], None]) -> None:
        """Run `job` on the GUI thread soon; never waits."""
        self._invoker.call.emit(job)

    def run(self, fn: Callable[[], T], timeout_s: float = GUI_CALL_TIMEOUT_S) -> T:
        if threading.current_thread() is self._gui_thread:
            return fn()
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def job() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:  # handed to the waiting thread
                future.set_exception(exc)

        self.post(job)
        return future.result(timeout_s)

    @staticmethod
    def _view(window: Any) -> Any:
        from webview.platforms.qt import BrowserView

        return BrowserView.instances.get(window.uid)

    def focus(self, window: Any) -> None:
        def raise_it() -> None:
            view = self._view(window)
            if view is None:
                return
            if view.isMinimized():
                view.showNormal()
            view.show()
            view.raise_()
            view.activateWindow()

        self.run(raise_it)

    def hide(self, window: Any) -> None:
        def hide_it() -> None:
            view = self._view(window)
            if view is not None:
                view.hide()

        self.run(hide_it)

    def is_visible(self, window: Any) -> bool:
        return bool(self.run(lambda: (v := self._view(window)) is not None and v.isVisible()))

    def is_active(self, window: Any) -> bool:
        return bool(self.run(lambda: (v := self._view(window)) is not None and v.isActiveWindow()))


class PlainWindowOps:
    """Other backends (written, verified only through pywebview's public API): pywebview's
    `show`/`restore`/`hide`, with visibility tracked from our own calls. Focus is unknown, so a
    shown window counts as attended."""

    def __init__(self) -> None:
        self._hidden: set[str] = set()
        self._lock = threading.Lock()

    def post(self, job: Callable[[], None]) -> None:
        threading.Thread(target=job, name="window-op", daemon=True).start()

    def focus(self, window: Any) -> None:
        with self._lock:
            self._hidden.discard(window.uid)
        window.show()
        window.restore()

    def hide(self, window: Any) -> None:
        with self._lock:
            self._hidden.add(window.uid)
        window.hide()

    def mark_hidden(self, window: Any) -> None:
        with self._lock:
            self._hidden.add(window.uid)

    def is_visible(self, window: Any) -> bool:
        with self._lock:
            return window.uid not in self._hidden

    def is_active(self, window: Any) -> bool:
        return self.is_visible(window)
