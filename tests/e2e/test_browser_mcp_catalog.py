"""The MCP Market's catalog in real Chromium against `cashcode serve`: the curated servers (no
built-in test servers), an install of `mcp-server-time` with its input form, the exact commands
and progress, the new server in the list, then Uninstall."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def serve_env(app_env: dict[str, str], workspace: Path) -> Iterator[dict[str, str]]:
    env = {**os.environ, **app_env, "WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}
    env["CASHCODE_MCP_TEST_SERVERS"] = ""  # the user's Market: no built-in test servers
    env["CASHCODE_MCP_DOWNLOAD_CACHE"] = str(REPO / ".cache" / "test-deps" / "mcp-downloads")
    yield env


def test_the_market_installs_a_catalog_server_and_uninstalls_it(
    served_ui: ServeProcess, browser_page: tuple[Page, PageProblems, EventFrames]
) -> None:
    page, _, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-mcp").click()
    expect(page.get_by_test_id("mcp-view")).to_be_visible()
    time = page.get_by_test_id("mcp-catalog-time")
    expect(time).to_contain_text("Time")
    expect(page.get_by_test_id("mcp-catalog-memory")).to_contain_text("Memory")
    expect(page.get_by_test_id("mcp-row")).to_have_count(0)

    page.get_by_test_id("mcp-catalog-search").fill("git")
    expect(page.get_by_test_id("mcp-catalog-git")).to_be_visible()
    expect(page.get_by_test_id("mcp-catalog-time")).to_have_count(0)
    page.get_by_test_id("mcp-catalog-search").fill("")

    time = page.get_by_test_id("mcp-catalog-time")
    time.get_by_test_id("mcp-catalog-install-time").click()
    time.get_by_test_id("mcp-catalog-input-timezone").fill("Asia/Tokyo")
    expect(time.get_by_test_id("mcp-catalog-commands")).to_contain_text("pip install")
    expect(time.get_by_test_id("mcp-catalog-commands")).to_contain_text("mcp-server-time==2026.10.19")
    time.get_by_test_id("mcp-catalog-confirm-time").click()
    expect(page.get_by_test_id("mcp-catalog-uninstall-time")).to_be_visible(timeout=600_000)
    row = page.locator('[data-testid="mcp-row"][data-name="time"]')
    expect(row).to_contain_text("--local-timezone Asia/Tokyo")

    page.get_by_test_id("mcp-catalog-uninstall-time").click()
    expect(page.get_by_test_id("mcp-catalog-install-time")).to_be_visible()
    expect(page.get_by_test_id("mcp-row")).to_have_count(0)
