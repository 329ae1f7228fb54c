"""A Skill ZIP dropped on the REAL window (a synthetic OS drop under Xvfb) opens the import
preview through the Python drop handler (full path), imports, and the Market shows it."""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import DesktopProcess, launch

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(180),
]

SKILL = "---\nname: dropped-skill\ndescription: Arrived by drag and drop.\n---\n# Dropped\n\nSteps.\n"


@pytest.fixture
def pw() -> Iterator[Playwright]:
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture
def probe(xvfb_display: str, seeded_env: dict[str, str], tmp_path: Path) -> Iterator[DesktopProcess]:
    trigger = tmp_path / "drop-trigger.txt"
    # One window: drops land on the main window, and the probe and attach() need no choosing
    # between it and the hidden Quick Ask page (covered by test_desktop_presence.py).
    env = {**seeded_env, "CASHCODE_TEST_DROP_TRIGGER": str(trigger), "CASHCODE_QUICK_WINDOW": "0"}
    app = launch([sys.executable, "tests/desktop/drop_probe.py"], env, xvfb_display)
    try:
        yield app
    finally:
        if app.proc.poll() is None:
            app.close_window()


def test_a_zip_dropped_on_the_window_imports_and_shows_in_the_market(
    probe: DesktopProcess, pw: Playwright, tmp_path: Path
) -> None:
    page = probe.attach(pw)
    page.set_default_timeout(30_000)
    expect(page.get_by_test_id("composer-input")).to_be_editable()
    archive = tmp_path / "my dropped skill ü.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("dropped-skill/SKILL.md", SKILL)
        z.writestr("dropped-skill/reference/notes.md", "# Notes\n")
    (tmp_path / "drop-trigger.txt").write_text(str(archive), encoding="utf-8")

    dialog = page.get_by_test_id("skill-preview")
    try:
        expect(dialog).to_be_visible()
    except AssertionError:
        print(probe.tail(80))
        raise
    expect(dialog).to_contain_text(str(archive))  # the full path came from the Python handler
    expect(page.get_by_test_id("skill-preview-name")).to_contain_text("dropped-skill")
    page.get_by_test_id("skill-preview-import").click()
    expect(page.get_by_test_id("skill-preview-done")).to_contain_text("dropped-skill")
    page.get_by_test_id("skill-preview-cancel").click()
    page.get_by_test_id("nav-skills").click()
    expect(page.locator('[data-skill="dropped-skill"]')).to_be_visible()
    assert any(line.startswith("PROBE_DROPPED") for line in probe.output)
