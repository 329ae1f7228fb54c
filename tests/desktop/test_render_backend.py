"""The Qt Quick backend choice: software only without a GPU render node, the user's choice wins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from app.desktop.render_backend import QUICK_BACKEND_VAR, choose_quick_backend, has_gpu_render_node
from tests.desktop.harness import app_dirs_env, desktop_command, launch
from tests.desktop.xvfb import xvfb


def _dri(tmp_path: Path, *nodes: str) -> Path:
    dri = tmp_path / "dri"
    dri.mkdir()
    for node in nodes:
        (dri / node).touch()
    return dri


def test_no_dri_folder_picks_the_software_backend(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    assert choose_quick_backend(env, tmp_path / "missing") == "software"
    assert env == {QUICK_BACKEND_VAR: "software"}


def test_a_card_without_a_render_node_is_no_gpu(tmp_path: Path) -> None:
    dri = _dri(tmp_path, "card0")
    assert not has_gpu_render_node(dri)
    env: dict[str, str] = {}
    assert choose_quick_backend(env, dri) == "software"


def test_a_render_node_keeps_opengl(tmp_path: Path) -> None:
    env: dict[str, str] = {"OTHER": "1"}
    assert choose_quick_backend(env, _dri(tmp_path, "card0", "renderD128")) is None
    assert env == {"OTHER": "1"}


def test_the_users_choice_wins(tmp_path: Path) -> None:
    for var, value in ((QUICK_BACKEND_VAR, "opengl"), ("QSG_RHI_BACKEND", "vulkan")):
        env = {var: value}
        assert choose_quick_backend(env, tmp_path / "missing") is None
        assert env == {var: value}


@pytest.mark.desktop
def test_the_real_window_shows_the_page_with_the_backend_chosen_here(tmp_path: Path) -> None:
    """The software backend must still put the page's pixels on screen (not a blank window)."""
    with xvfb() as display:
        app = launch(desktop_command(), app_dirs_env(tmp_path / "cashcode"), display.name)
        try:
            with sync_playwright() as pw:
                page = app.attach(pw, timeout_s=60)
                page.get_by_text("Welcome to CashCode").wait_for(timeout=60_000)
                page.wait_for_timeout(500)  # the next frames reach the screen
                grab = subprocess.run(
                    [sys.executable, "-m", "tests.desktop.screen_grab"],
                    env={**os.environ, "DISPLAY": display.name, "QT_QPA_PLATFORM": "xcb"},
                    capture_output=True, text=True, timeout=60, check=True,
                )  # fmt: skip
        finally:
            app.terminate()
    shown = json.loads(grab.stdout.strip().splitlines()[-1])
    assert shown["colours"] > 20, shown  # text, buttons, the card: not one flat colour
