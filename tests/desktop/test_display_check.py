"""Without a display, `cashcode desktop` explains itself instead of letting Qt abort."""

from __future__ import annotations

import os
import subprocess
import sys

from app.desktop.main import display_problem


def test_linux_without_a_display_points_at_serve() -> None:
    problem = display_problem("linux", {})
    assert problem is not None and "cashcode serve" in problem


def test_a_display_or_an_explicit_qt_platform_is_enough() -> None:
    assert display_problem("linux", {"DISPLAY": ":1"}) is None
    assert display_problem("linux", {"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert display_problem("linux", {"QT_QPA_PLATFORM": "offscreen"}) is None
    assert display_problem("darwin", {}) is None


def test_the_desktop_command_exits_1_with_one_line_when_headless(tmp_path: object) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(CASHCODE_DATA_DIR=f"{tmp_path}/d", CASHCODE_CONFIG_DIR=f"{tmp_path}/c")
    result = subprocess.run(
        [sys.executable, "-m", "app", "desktop"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "cashcode desktop: " + (display_problem("linux", {}) or "")
    ]
