"""Qt WebEngine keeps its profile, HTTP cache and shader caches in CashCode's own folders (the
ones CASHCODE_DATA_DIR / CASHCODE_CACHE_DIR choose), not in Qt's default ~/.cache/CashCode/…"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import desktop_command, launch

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(180),
]


def test_webengine_profile_and_caches_live_in_the_apps_folders(
    xvfb_display: str, seeded_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **seeded_env,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    app = launch(desktop_command(), env, xvfb_display)
    try:
        with sync_playwright() as pw:
            page = app.attach(pw)
            expect(page.get_by_test_id("composer-input")).to_be_editable(timeout=30_000)
        assert app.close_window() == 0, app.tail()
    finally:
        if app.proc.poll() is None:
            app.proc.kill()
    cache = Path(seeded_env["CASHCODE_CACHE_DIR"]) / "webengine" / "pywebview"
    assert cache.is_dir(), sorted(str(p) for p in Path(seeded_env["CASHCODE_CACHE_DIR"]).rglob("*"))[:20]
    assert (Path(seeded_env["CASHCODE_DATA_DIR"]) / "webview").is_dir()
    outside = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    ours = [p for p in outside if "CashCode" in p or "cashcode" in p]
    assert ours == [], ours
