"""Issue 41 item 6 in the REAL window (a synthetic OS drop under Xvfb): a file dropped on the
Knowledge view is offered to a knowledge base with its full path (from the Python drop
handler) and added, instead of being refused as "not a Skill"."""

from __future__ import annotations

import os
import sys
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


@pytest.fixture
def pw() -> Iterator[Playwright]:
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture
def probe(xvfb_display: str, seeded_env: dict[str, str], tmp_path: Path) -> Iterator[DesktopProcess]:
    env = {
        **seeded_env,
        "CASHCODE_TEST_DROP_TRIGGER": str(tmp_path / "drop-trigger.txt"),
        "CASHCODE_TEST_DROP_AT": "700,420",  # inside the Knowledge view, right of the sidebar
        "CASHCODE_QUICK_WINDOW": "0",
    }
    app = launch([sys.executable, "tests/desktop/drop_probe.py"], env, xvfb_display)
    try:
        yield app
    finally:
        if app.proc.poll() is None:
            app.close_window()


def test_a_file_dropped_on_the_knowledge_view_is_added_to_a_knowledge_base(
    probe: DesktopProcess, pw: Playwright, tmp_path: Path
) -> None:
    page = probe.attach(pw)
    page.set_default_timeout(30_000)
    expect(page.get_by_test_id("composer-input")).to_be_editable()
    page.get_by_test_id("nav-knowledge").click()
    expect(page.get_by_test_id("knowledge-view")).to_be_visible()
    folder = tmp_path / "quarterly reports"
    folder.mkdir()
    report = folder / "q3 ü.md"
    report.write_text("# Q3\n\nRevenue grew by a third.\n", encoding="utf-8")
    (tmp_path / "drop-trigger.txt").write_text(str(report), encoding="utf-8")

    panel = page.get_by_test_id("kb-dropped")
    try:
        expect(panel).to_be_visible()
    except AssertionError:
        print(probe.tail(80))
        raise
    expect(panel).to_contain_text(str(report))  # the full path came from the Python handler
    expect(page.get_by_test_id("drop-refused")).to_have_count(0)
    expect(page.get_by_test_id("skill-preview")).to_have_count(0)
    page.get_by_test_id("kb-dropped-add").click()  # no base yet: a new one named after it
    expect(panel).to_have_count(0)
    expect(page.get_by_test_id("knowledge-view")).to_contain_text(str(report))
