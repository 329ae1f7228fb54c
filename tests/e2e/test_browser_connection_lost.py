"""The browser says so when `cashcode serve` is gone (issue 41): the page cannot come back by
itself (a restarted server has a new port and secret address), so it tells the user what to do."""

from __future__ import annotations

import signal

from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import UI_TIMEOUT_MS, EventFrames, PageProblems
from tests.server.process import ServeProcess


def test_stopping_the_server_shows_the_connection_lost_banner(
    served_ui: ServeProcess, browser_page: tuple[Page, PageProblems, EventFrames]
) -> None:
    page, _, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    banner = page.get_by_test_id("connection-lost")
    expect(banner).to_be_hidden()
    served_ui.proc.send_signal(signal.SIGINT)  # Ctrl+C in the terminal that ran it
    served_ui.proc.wait(timeout=30)
    expect(banner).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(banner).to_have_text("Connection lost — restart `cashcode serve` and open its new address")
    assert banner.get_attribute("role") == "alert"
