"""Settings, Usage, Knowledge, Skills and Tasks share one page template (issue 41): the same
space under the header and at the sides, read from the rendered pages in Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

VIEWS = ("settings", "usage", "knowledge", "skills", "tasks")


def _body_box(page: Page, view: str) -> dict[str, float]:
    """The scrolling body under the page's header: its padding and its right edge."""
    box: dict[str, float] = page.evaluate(
        """(view) => {
          const root = document.querySelector(`[data-testid="${view}-view"]`);
          const body = root.querySelector('.settings-scroll');
          const header = root.querySelector('header').getBoundingClientRect();
          const s = getComputedStyle(body);
          const r = body.getBoundingClientRect();
          return {
            top: parseFloat(s.paddingTop), left: parseFloat(s.paddingLeft),
            right: parseFloat(s.paddingRight), gap: r.top - header.bottom, edge: r.right,
          };
        }""",
        view,
    )
    return box


def test_the_pages_share_the_padding_under_the_header_and_the_width(
    served_ui: ServeProcess, browser_page: tuple[Page, PageProblems, EventFrames]
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    boxes = {}
    for view in VIEWS:
        open_view(page, view)
        boxes[view] = _body_box(page, view)
    first = boxes["settings"]
    assert first["top"] >= 12
    for view, box in boxes.items():
        assert (box["top"], box["left"], box["right"], box["edge"]) == (
            first["top"],
            first["left"],
            first["right"],
            first["edge"],
        ), view
        assert box["gap"] == first["gap"], view
    assert problems.messages == []
