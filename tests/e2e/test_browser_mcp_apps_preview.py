"""The Market's bundle preview lists the bundle's MCP Apps before anything is installed (issue 37
item 3, decision 550), in real Chromium against `cashcode serve`: the repo's App test server,
packed as a bundle, is started once inside the sandbox by the preview, and the dialog shows its
App tool with the domain and permissions its page declares."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.sandbox.probe import landlock_abi
from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.test_browser_chat import open_ui
from tests.mcp_catalog.app_bundle import DECLARED, app_bundle
from tests.server.process import ServeProcess

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(landlock_abi({})[0] < 1, reason="needs a kernel with Landlock"),
]


@pytest.fixture
def serve_env(app_env: dict[str, str], workspace: Path) -> Iterator[dict[str, str]]:
    env = {**os.environ, **app_env, "WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}
    env["CASHCODE_MCP_TEST_SERVERS"] = ""  # the user's Market: no built-in test servers
    yield env


def test_the_market_bundle_preview_shows_the_apps_and_what_they_declare(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    tmp_path: Path,
) -> None:
    page, problems, _ = browser_page
    bundle = app_bundle(tmp_path / "app-kit.mcpb", permissions="camera,microphone")
    open_ui(page, served_ui)
    page.get_by_test_id("nav-mcp").click()
    page.get_by_test_id("mcp-bundle-file").set_input_files(str(bundle))
    expect(page.get_by_test_id("bundle-preview-name")).to_contain_text("App Kit")
    apps = page.get_by_test_id("bundle-preview").get_by_test_id("mcp-apps-preview")
    expect(apps).to_have_attribute("data-state", "listed", timeout=60_000)
    item = apps.locator('[data-testid="mcp-apps-preview-item"][data-tool="show_probe"]')
    expect(item).to_contain_text(f"may reach: {DECLARED}")
    expect(item).to_contain_text("asks for: camera, microphone")
    expect(apps.get_by_test_id("mcp-apps-preview-item")).to_have_count(1)  # app_save has no page
    page.get_by_test_id("bundle-preview-cancel").click()
    expect(page.get_by_test_id("bundle-preview")).to_have_count(0)
    expect(page.locator('[data-testid="mcp-row"][data-name="app-kit"]')).to_have_count(0)  # nothing installed
    assert problems.messages == []
