"""The real desktop app (`app.desktop.main.run`) plus an OS-drop simulator for tests.

When the test writes a path into the file named by CASHCODE_TEST_DROP_TRIGGER, the probe sends
the native drag sequence for that path (QDragEnterEvent → QDragMoveEvent → QDropEvent with a
file:// URL) to the window's web view, on the GUI thread, exactly as the OS would
(recipe: tech notes §2). Everything else is the unmodified app.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from qtpy import QtCore, QtGui, QtWidgets

from app.desktop.main import run


class _Dropper(QtCore.QObject):
    drop = QtCore.Signal(str)

    def __init__(self) -> None:
        super().__init__()

    @QtCore.Slot(str)  # a real slot: the receiver is this object (GUI thread), not a proxy
    def _do_drop(self, path: str) -> None:
        from webview.platforms.qt import BrowserView

        # The main window (the hidden Quick Ask window is another BrowserView).
        views = list(BrowserView.instances.values())
        main = next((v for v in views if v.pywebview_window.title == "CashCode"), views[0])
        view = main.webview
        mime = QtCore.QMimeData()
        mime.setUrls([QtCore.QUrl.fromLocalFile(path)])
        # Where in the window the drop lands: CASHCODE_TEST_DROP_AT="x,y" (default 200,200).
        x, y = (int(v) for v in os.environ.get("CASHCODE_TEST_DROP_AT", "200,200").split(","))
        pos = QtCore.QPoint(x, y)
        action = QtCore.Qt.DropAction.CopyAction
        button = QtCore.Qt.MouseButton.LeftButton
        mods = QtCore.Qt.KeyboardModifier.NoModifier
        for target in (view, view.focusProxy()):
            if target is None:
                continue
            QtWidgets.QApplication.sendEvent(target, QtGui.QDragEnterEvent(pos, action, mime, button, mods))
            QtWidgets.QApplication.sendEvent(target, QtGui.QDragMoveEvent(pos, action, mime, button, mods))
            QtWidgets.QApplication.sendEvent(
                target, QtGui.QDropEvent(QtCore.QPointF(pos), action, mime, button, mods)
            )
            print(f"PROBE_DROPPED {type(target).__name__}", flush=True)
            return


def _watch(trigger: Path) -> None:
    # The QObject is made once the window exists and moved to the GUI thread, so the
    # signal emitted here is delivered there, queued.
    from webview.platforms.qt import BrowserView

    while not BrowserView.instances:  # the window exists, so the final QApplication does
        time.sleep(0.05)
    app = QtWidgets.QApplication.instance()
    assert app is not None
    dropper = _Dropper()
    dropper.moveToThread(app.thread())
    dropper.drop.connect(dropper._do_drop, QtCore.Qt.ConnectionType.QueuedConnection)
    seen = ""
    while True:  # the probe process ends with the window; this daemon thread with it
        try:
            text = trigger.read_text(encoding="utf-8").strip()
        except OSError:
            text = ""
        if text and text != seen:
            seen = text
            dropper.drop.emit(text)
        time.sleep(0.05)


if __name__ == "__main__":
    trigger = Path(os.environ["CASHCODE_TEST_DROP_TRIGGER"])
    threading.Thread(target=_watch, args=(trigger,), daemon=True).start()
    sys.exit(run([]))
