"""Settings → Tools in Chromium against `cashcode serve`: every tool a turn can offer is listed
in its group, and a capability tool's policy is saved and still set after a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser_helpers import UI_TIMEOUT_MS, EventFrames, PageProblems, open_view
from tests.e2e.test_browser_chat import open_ui
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def _policy(page: Page, group: str, tool: str) -> Locator:
    return page.get_by_test_id(f"tool-group-{group}").get_by_label(f"Policy: {tool}", exact=True)


def test_tools_are_grouped_and_a_memory_tool_can_be_turned_off(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    open_view(page, "settings")
    for group, tool in [
        ("builtin", "read_file"),
        ("websearch", "web_search"),
        ("memory", "remember_memory"),
        ("memory", "create_todo"),
        ("skills", "skill_load"),
        ("mcp", "tool_search"),
    ]:
        expect(_policy(page, group, tool)).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(_policy(page, "memory", "remember_memory")).to_have_value("ask")
    expect(_policy(page, "skills", "skill_load")).to_have_value("always")
    _policy(page, "memory", "remember_memory").select_option("never")
    page.reload()
    expect(page.get_by_test_id("app-root")).to_be_visible()
    open_view(page, "settings")
    expect(_policy(page, "memory", "remember_memory")).to_have_value("never", timeout=UI_TIMEOUT_MS)
    assert problems.messages == []
