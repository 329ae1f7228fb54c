"""The Memory view in real Chromium against `cashcode serve`: explicit memories, MEMORY.md with
a version and revert, and a clear error for an oversized SOUL.md."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_memory_view_memories_versions_and_soul_limit(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-memory").click()
    expect(page.get_by_test_id("memory-view")).to_be_visible()

    # MEMORY.md: save twice, then revert to the first version.
    editor = page.get_by_test_id("memory-editor")
    editor.fill("- The user's cat is called Miso\n")
    page.get_by_test_id("memory-save").click()
    expect(page.get_by_test_id("memory-version")).to_have_count(1)
    editor.fill("- The user's cat is called Miso\n- Works in Rust\n")
    page.get_by_test_id("memory-save").click()
    expect(page.get_by_test_id("memory-version")).to_have_count(2)
    page.get_by_test_id("memory-revert").first.click()
    expect(page.get_by_test_id("memory-version")).to_have_count(3)
    expect(editor).to_have_value("- The user's cat is called Miso\n")

    # Explicit memories: add two, filter by a tag.
    page.get_by_test_id("memory-tab-memories").click()
    for text, tags in (("Prefers uv for Python", "python tooling"), ("Tea without sugar", "food")):
        page.get_by_test_id("memory-new-content").fill(text)
        page.get_by_test_id("memory-new-tags").fill(tags)
        page.get_by_test_id("memory-add").click()
    expect(page.get_by_test_id("memory-item")).to_have_count(2)
    page.get_by_test_id("memories-search").fill("uv #python")
    page.get_by_test_id("memories-search").press("Enter")
    expect(page.get_by_test_id("memory-item")).to_have_count(1)
    expect(page.get_by_test_id("memory-item")).to_contain_text("Prefers uv for Python")

    # SOUL.md over the limit: a clear error, nothing saved.
    page.get_by_test_id("memory-tab-soul").click()
    page.get_by_test_id("soul-editor").fill("x" * 20_001)
    page.get_by_test_id("soul-save").click()
    expect(page.get_by_test_id("soul-error")).to_contain_text("limited to 20000 characters")
    # The refused save may log the HTTP status; nothing else may go wrong on the page.
    assert [m for m in problems.messages if "Failed to load resource" not in m] == []
