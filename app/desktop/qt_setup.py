"""Qt WebEngine set-up for the Linux backend, done before pywebview touches Qt."""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from app.desktop import webrtc_off

FLAGS_VAR = "QTWEBENGINE_CHROMIUM_FLAGS"


def uses_qt() -> bool:
    """pywebview's Qt backend is ours on Linux; elsewhere the native webview is used."""
    return sys.platform.startswith("linux")


# Both windows load pages of the same local origin; one renderer process serves them both
# instead of one each (measured: about 10-15 MB less PSS; docs/decisions.md).
SHARED_RENDERER_FLAG = "--process-per-site"


def prepare_qt_environment(env: MutableMapping[str, str], *, is_root: bool | None = None) -> None:
    """Chromium flags for Qt WebEngine, added to whatever the user already set there.

    `--process-per-site`: the main and Quick Ask pages share one renderer. The WebRTC policy
    sends no UDP from any page (app/desktop/webrtc_off.py). `--no-sandbox` only
    when running as root: Chromium refuses to start its renderer sandbox as root and the page
    stays blank; root in a container or CI is the only case this covers. Normal users keep the
    sandbox. Must run before the QApplication exists: Chromium reads the variable once.
    """
    if not sys.platform.startswith("linux"):
        return
    root = os.geteuid() == 0 if is_root is None else is_root
    flags = env.get(FLAGS_VAR, "").split()
    wanted = [SHARED_RENDERER_FLAG, webrtc_off.WEBRTC_FLAG] + (["--no-sandbox"] if root else [])
    added = [flag for flag in wanted if flag not in flags]
    if added:
        env[FLAGS_VAR] = " ".join([*flags, *added])


PIPELINE_CACHE_VARS = ("QSG_RHI_PIPELINE_CACHE_SAVE", "QSG_RHI_PIPELINE_CACHE_LOAD")


def place_pipeline_cache(env: MutableMapping[str, str], cache_dir: Path) -> None:
    """Qt Quick (under each web view) keeps its graphics pipeline cache in
    ~/.cache/<org>/<app>/qtpipelinecache-*; an explicit file keeps it in our cache folder.
    Qt reads only these variables for that (no API reaches the web view's inner window);
    a value the user set wins."""
    target = str(cache_dir / "webengine" / "qtpipelinecache.bin")
    for name in PIPELINE_CACHE_VARS:
        env.setdefault(name, target)


def create_qt_application(
    argv: list[str], data_dir: Path | None = None, cache_dir: Path | None = None
) -> Any:
    """Create the QApplication ourselves so the app (later: tray) can configure it.

    QtWebEngineWidgets must be imported before any QCoreApplication exists, or Qt refuses
    (tech-notes §3.1). pywebview then reuses `QApplication.instance()`.
    """
    from qtpy import QtWebEngineWidgets  # noqa: F401  (import side effect is the point)
    from qtpy.QtWidgets import QApplication

    if data_dir is not None and cache_dir is not None:
        share_webengine_profile(data_dir / "webview", cache_dir / "webengine")
    else:
        share_webengine_profile()
    app = QApplication.instance() or QApplication(argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("CashCode")
    app.setOrganizationName("CashCode")
    # The name the desktop entry (cashcode.desktop) is found by: task bar grouping and icon.
    app.setDesktopFileName("cashcode")
    set_window_icon(app)
    # Closing the last window must not end the process behind our back: pywebview quits
    # explicitly when its main window closes, and a future tray keeps the app alive.
    app.setQuitOnLastWindowClosed(False)
    return app


def set_window_icon(app: Any) -> None:
    """Every window (and the task bar entry) shows the app icon, in the bundle too."""
    from qtpy.QtGui import QIcon

    from app.desktop.assets import app_icon

    icon = app_icon()
    if icon is not None:
        app.setWindowIcon(QIcon(str(icon)))


def share_webengine_profile(storage: Path | None = None, cache: Path | None = None) -> None:
    """Make every pywebview window use ONE persistent Qt WebEngine profile.

    pywebview 6.2.1's Qt backend creates `QWebEngineProfile("pywebview")` per window. Two
    persistent profiles with the same name and storage path fight over it: with a second window
    (Quick Ask) neither page ever finishes loading (measured: both stay "loading" with no
    resource requested). pywebview imports the class from qtpy when `webview.start` loads the
    backend, so replacing it here first, with a factory that hands out one profile per name,
    fixes that; the off-the-record profile (no name) stays per window as before. Every profile
    it hands out takes WebRTC away from its pages (app/desktop/webrtc_off.py).
    """
    from qtpy import QtWebEngineWidgets

    real = getattr(QtWebEngineWidgets, "QWebEngineProfile")  # noqa: B009  (not in the stubs)
    if getattr(real, "_cashcode_shared", False):
        return
    shared: dict[str, Any] = {}

    def profile(*args: Any) -> Any:
        if not args:
            made = real()
            webrtc_off.install(made)
            return made
        name = str(args[0])
        if name not in shared:
            shared[name] = _named_profile(real, args, storage, cache)
            webrtc_off.install(shared[name])
        return shared[name]

    profile._cashcode_shared = True  # type: ignore[attr-defined]
    setattr(QtWebEngineWidgets, "QWebEngineProfile", profile)  # noqa: B010


def _named_profile(real: Any, args: tuple[Any, ...], storage: Path | None, cache: Path | None) -> Any:
    """A persistent profile whose storage and HTTP cache are in our folders.

    `QWebEngineProfile(name)` starts on ~/.local/share/<org>/<app>/QtWebEngine/<name> and
    ~/.cache/<org>/<app>, outside the folders CASHCODE_DATA_DIR/CASHCODE_CACHE_DIR choose
    (pywebview later sets only the storage path). The profile builder that avoids that cannot
    be created from PyQt6, so the paths are moved at once and the default folders Qt made on
    construction are removed again while they are still empty (rmdir never removes content).
    """
    profile = real(*args)
    if storage is None or cache is None or len(args) != 1:
        return profile
    default_storage = Path(profile.persistentStoragePath())
    profile.setPersistentStoragePath(str(storage))
    profile.setCachePath(str(cache / str(args[0])))
    _remove_empty_parents(default_storage, stop_after=3)  # <name>, QtWebEngine, <app>, <org>
    return profile


def _remove_empty_parents(folder: Path, stop_after: int) -> None:
    for path in [folder, *list(folder.parents)[:stop_after]]:
        try:
            path.rmdir()
        except OSError:
            return  # not empty (or never made): leave it and everything above
