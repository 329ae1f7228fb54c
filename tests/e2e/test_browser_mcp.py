"""The MCP Market in real Chromium against `cashcode serve`: built-in servers, a live connect,
tools with the read-only hint and a per-tool policy, a pasted import with preview, and the
confirmation a stdio server needs before its first start."""

from __future__ import annotations

import json
import sys

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def row(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid="mcp-row"][data-name="{name}"]')


def test_mcp_market_connect_tools_policy_and_import(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-mcp").click()
    expect(page.get_by_test_id("mcp-view")).to_be_visible()
    expect(page.get_by_test_id("mcp-row")).to_have_count(3)

    stdio = row(page, "test_stdio_mcp")
    stdio.get_by_test_id("mcp-connect").click()
    expect(stdio).to_have_attribute("data-status", "connected", timeout=90_000)  # pushed by an event
    stdio.get_by_test_id("mcp-details").click()
    tool = stdio.get_by_test_id("mcp-tool-row")
    expect(tool).to_contain_text("say_hello")
    expect(tool).to_contain_text("says read-only")
    tool.get_by_test_id("mcp-tool-policy").select_option("always")
    open_view(page, "settings")
    open_view(page, "mcp")
    row(page, "test_stdio_mcp").get_by_test_id("mcp-details").click()
    expect(row(page, "test_stdio_mcp").get_by_test_id("mcp-tool-policy")).to_have_value("always")

    snippet = {
        "mcpServers": {"mine": {"command": sys.executable, "args": ["-V"]}, "bad": {"type": "x", "url": "u"}}
    }
    page.get_by_test_id("mcp-open-import").click()
    page.get_by_test_id("mcp-import-text").fill(json.dumps(snippet))
    page.get_by_test_id("mcp-import-preview").click()
    expect(page.get_by_test_id("mcp-import-items")).to_contain_text("unknown transport")
    page.get_by_test_id("mcp-import-save").click()
    mine = row(page, "mine")
    expect(mine).to_be_visible()
    expect(mine).to_contain_text(f"{sys.executable} -V")
    expect(mine.get_by_test_id("mcp-confirm-hint")).to_be_visible()
    mine.get_by_test_id("mcp-confirm").click()
    expect(mine.get_by_test_id("mcp-connect")).to_be_visible()
    assert problems.messages == []
