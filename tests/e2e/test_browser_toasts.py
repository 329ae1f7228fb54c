"""Issue 41 item 6 in real Chromium over `cashcode serve`: the toast that refuses a dropped file
goes away by itself, and never sits above an open dialog (it covered a bundle dialog's Install
button): the dialog's backdrop is what is on top where the toast is."""

from __future__ import annotations

import base64

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.test_browser_attachments import save_provider
from tests.e2e.test_browser_mcp_bundle import DROP_JS
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

# frontend/src/components/common/AppToast.vue TOAST_MS, plus room for a loaded machine.
TOAST_GONE_MS = 6000 + 6000

# The element on top at the centre of the toast, as the user would hit it.
TOP_AT_TOAST = """() => {
  const toast = document.querySelector('[data-testid=drop-refused]');
  const r = toast.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return toast.contains(top) ? 'toast' : (top.closest('[role=dialog], .backdrop') ? 'dialog' : top.className);
}"""


def test_a_refusal_toast_goes_away_and_never_covers_a_dialog(
    served_ui: ServeProcess, browser_page: tuple[Page, PageProblems, EventFrames]
) -> None:
    page, _, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    save_provider(page, "Fake", "chat_completions", "http://127.0.0.1:9/v1")  # past the welcome page
    page.get_by_test_id("nav-chat").click()
    text = base64.b64encode(b"just notes").decode()

    # A dialog is open (a bundle that is not one: its preview says why), then a refused drop.
    page.evaluate(DROP_JS, ["broken.mcpb", base64.b64encode(b"not a zip").decode(), "body"])
    expect(page.get_by_test_id("bundle-preview")).to_be_visible()
    page.evaluate(DROP_JS, ["notes.txt", text, "body"])
    toast = page.get_by_test_id("drop-refused")
    expect(toast).to_be_visible()
    assert page.evaluate(TOP_AT_TOAST) == "dialog"
    page.get_by_test_id("bundle-preview-cancel").click()
    expect(page.get_by_test_id("bundle-preview")).to_have_count(0)

    # With no dialog the toast is on top, and it goes away by itself.
    page.evaluate(DROP_JS, ["more-notes.txt", text, "body"])
    expect(toast).to_be_visible()
    assert page.evaluate(TOP_AT_TOAST) == "toast"
    expect(toast).to_have_count(0, timeout=TOAST_GONE_MS)
