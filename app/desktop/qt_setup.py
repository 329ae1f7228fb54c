"""Qt WebEngine set-up for the Linux backend, done before pywebview touches Qt."""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from typing import Any

FLAGS_VAR = "QTWEBENGINE_CHROMIUM_FLAGS"


def uses_qt() -> bool:
    """pywebview's Qt backend is ours on Linux; elsewhere the native webview is used."""
    return sys.platform.startswith("linux")


def prepare_qt_environment(env: MutableMapping[str, str]) -> None:
    """Add `--no-sandbox` when running as root on Linux.

    Chromium (inside Qt WebEngine) refuses to start its renderer sandbox as root and the page
    stays blank; root in a container or CI is the only case this covers. Normal users keep
    the sandbox. Must run before the QApplication exists: Chromium reads the variable once.
    """
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return
    flags = env.get(FLAGS_VAR, "").split()
    if "--no-sandbox" not in flags:
        env[FLAGS_VAR] = " ".join([*flags, "--no-sandbox"])


def create_qt_application(argv: list[str]) -> Any:
    """Create the QApplication ourselves so the app (later: tray) can configure it.

    QtWebEngineWidgets must be imported before any QCoreApplication exists, or Qt refuses
    (tech-notes §3.1). pywebview then reuses `QApplication.instance()`.
    """
    from qtpy import QtWebEngineWidgets  # noqa: F401  (import side effect is the point)
    from qtpy.QtWidgets import QApplication

    share_webengine_profile()
    app = QApplication.instance() or QApplication(argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("CashCode")
    app.setOrganizationName("CashCode")
    # Closing the last window must not end the process behind our back: pywebview quits
    # explicitly when its main window closes, and a future tray keeps the app alive.
    app.setQuitOnLastWindowClosed(False)
    return app


def share_webengine_profile() -> None:
    """Make every pywebview window use ONE persistent Qt WebEngine profile.

    pywebview 6.2.1's Qt backend creates `QWebEngineProfile("pywebview")` per window. Two
    persistent profiles with the same name and storage path fight over it: with a second window
    (Quick Ask) neither page ever finishes loading (measured: both stay "loading" with no
    resource requested). pywebview imports the class from qtpy when `webview.start` loads the
    backend, so replacing it here first, with a factory that hands out one profile per name,
    fixes that; the off-the-record profile (no name) stays per window as before.
    """
    from qtpy import QtWebEngineWidgets

    real = getattr(QtWebEngineWidgets, "QWebEngineProfile")  # noqa: B009  (not in the stubs)
    if getattr(real, "_cashcode_shared", False):
        return
    shared: dict[str, Any] = {}

    def profile(*args: Any) -> Any:
        if not args:
            return real()
        name = str(args[0])
        if name not in shared:
            shared[name] = real(*args)
        return shared[name]

    profile._cashcode_shared = True  # type: ignore[attr-defined]
    setattr(QtWebEngineWidgets, "QWebEngineProfile", profile)  # noqa: B010
