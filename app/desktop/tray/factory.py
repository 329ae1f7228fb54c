"""Pick the tray adapter for this OS."""

from __future__ import annotations

import sys
from collections.abc import Callable

from app.desktop.tray.base import TrayActions, TrayHost, TrayLabels


def create_tray(
    actions: TrayActions,
    labels: TrayLabels,
    post: Callable[[Callable[[], None]], None],
    platform: str = sys.platform,
    labels_for: Callable[[], TrayLabels] | None = None,
) -> TrayHost:
    from app.desktop.assets import app_icon

    icon = app_icon()
    if platform.startswith("linux"):
        from app.desktop.tray.qt_tray import QtTray

        return QtTray(actions, labels, post, icon_path=str(icon) if icon else None, labels_for=labels_for)
    from app.desktop.tray.pystray_tray import PystrayTray

    return PystrayTray(actions, labels, platform, icon_path=str(icon) if icon else None)
