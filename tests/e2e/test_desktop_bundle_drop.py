"""An MCP Bundle dropped on the REAL window (a synthetic OS drop under Xvfb): the Python drop
handler publishes `bundle_open_requested` with the full path (the page itself does nothing with
a bundle in the window), the preview opens with a folder picker beside the folder option, and
Install makes the bundle one of the user's servers."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Playwright, expect

from tests.desktop.harness import DesktopProcess
from tests.e2e.test_desktop_skill_drop import probe, pw, pytestmark
from tests.mcp_catalog import bundle_kit as kit

__all__ = ["probe", "pw", "pytestmark"]


def test_a_bundle_dropped_on_the_window_opens_its_preview_and_installs(
    probe: DesktopProcess, pw: Playwright, tmp_path: Path
) -> None:
    bundle = kit.python_bundle(kit.mcpb_cli(), tmp_path)
    page = probe.attach(pw)
    page.set_default_timeout(60_000)
    expect(page.get_by_test_id("composer-input")).to_be_editable()
    (tmp_path / "drop-trigger.txt").write_text(str(bundle), encoding="utf-8")
    try:
        expect(page.get_by_test_id("bundle-preview")).to_be_visible()
    except AssertionError:
        print(probe.tail(80))
        raise
    expect(page.get_by_test_id("bundle-preview-name")).to_contain_text("Shout Kit")
    expect(page.get_by_test_id("bundle-pick-root")).to_be_visible()  # the window has a folder picker
    expect(page.get_by_test_id("attachment-chip")).to_have_count(0)
    page.get_by_test_id("bundle-input-token").fill("window-secret")
    page.get_by_test_id("bundle-preview-install").click()
    try:
        expect(page.get_by_test_id("bundle-preview-done")).to_contain_text("shout-kit", timeout=120_000)
    except AssertionError:
        print(probe.tail(80))
        print(page.get_by_test_id("bundle-preview").inner_text())
        raise
    page.get_by_test_id("bundle-preview-cancel").click()
    page.get_by_test_id("nav-mcp").click()
    expect(page.locator('[data-testid="mcp-row"][data-name="shout-kit"]')).to_be_visible()
    assert any(line.startswith("PROBE_DROPPED") for line in probe.output)
