"""The Usage view in real Chromium against `cashcode serve`, on a database seeded with traces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.api.plugins import open_database
from tests.e2e.browser_helpers import ARTIFACTS, EventFrames, PageProblems
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


@pytest.fixture
def seeded_usage(app_env: dict[str, str]) -> str:
    """Chats and 300 traced turns over the last 30 days, written before the server starts."""
    from app.store.chats import ChatRepository
    from app.testing.trace_seed import seed_traces

    data = Path(app_env["CASHCODE_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    with open_database(data / "cashcode.sqlite3") as db:
        chats = ChatRepository(db)
        ids = [chats.create(f"Seeded chat {i}").id for i in range(3)]
        seed_traces(db, 300, days=30, chat_ids=ids)
    return ids[0]


def test_the_usage_view_renders_seeded_totals_charts_and_links_to_chats(
    seeded_usage: str,
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.goto(page.url.split("#")[0] + "#/usage")  # the UI lives under its private prefix
    view = page.get_by_test_id("usage-view")
    expect(view).to_be_visible()
    totals = page.get_by_test_id("usage-totals")
    expect(totals).to_contain_text("300")
    expect(page.get_by_test_id("usage-total-cost")).not_to_have_text("unknown")
    expect(page.locator(".usage-chart canvas")).to_have_count(2)
    expect(page.get_by_test_id("usage-slowest").locator("tbody tr")).to_have_count(10)
    expect(page.get_by_test_id("usage-most_expensive")).to_contain_text("gpt-5.6")
    # The charts drew something: the canvas is not blank.
    drawn = page.evaluate(
        "() => { const c = document.querySelector('.usage-chart canvas');"
        " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        " let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; }"
    )
    assert drawn > 1000
    # Every "Open chat" link is whole inside its table's box, with no sideways scrolling (issue 41).
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('.usage-table-box')].flatMap((box) => {
          const edge = box.getBoundingClientRect().right;
          const scrolls = box.scrollWidth > box.clientWidth;
          return [...box.querySelectorAll('tbody a')]
            .filter((a) => scrolls || a.getBoundingClientRect().right > edge + 0.5)
            .map((a) => a.textContent);
        })"""
    )
    assert clipped == []
    expect(page.get_by_test_id("usage-set-prices")).to_have_count(0)  # the seeded turns have costs
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "usage-view.png"), full_page=True)
    # Dark theme: the charts repaint with the theme's colours (axis text read from CSS variables).
    page.evaluate("() => document.documentElement.classList.add('theme-dark')")
    expect(page.locator("html.theme-dark")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "usage-view-dark.png"), full_page=True)
    page.evaluate("() => document.documentElement.classList.remove('theme-dark')")

    page.get_by_test_id("usage-range-7").click()
    expect(totals).not_to_contain_text("300")
    page.get_by_test_id("usage-slowest").get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"#/chat/[^/]+$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Seeded chat")
    assert problems.messages == []


def test_the_usage_view_is_readable_with_no_data(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.goto(page.url.split("#")[0] + "#/usage")  # the UI lives under its private prefix
    expect(page.get_by_test_id("usage-empty")).to_be_visible()
    expect(page.get_by_test_id("usage-total-cost")).to_have_text("unknown")
    # No prices, no costs: a link to set them instead of an empty cost chart (issue 41).
    expect(page.locator(".usage-chart canvas")).to_have_count(1)
    set_prices = page.get_by_test_id("usage-set-prices")
    expect(set_prices).to_have_text("Set prices")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "usage-view-empty.png"), full_page=True)
    set_prices.click()
    expect(page).to_have_url(re.compile(r"#/settings\?section=prices$"))
    expect(page.get_by_test_id("prices-section")).to_be_visible()
    assert problems.messages == []
