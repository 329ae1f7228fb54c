"""The Inbox view in real Chromium against `cashcode serve` and the scripted fake LLM (issue 35),
in both UI languages: the sidebar's badge counts the waiting questions of a chat and of Quick
Ask; answering one in the Inbox (another window of the same browser) closes the chat's own
approval dialog, which then says it was answered in the Inbox; the Inbox shows who asks,
exactly what (the dialog's own summary and text), since when, and, once answered, by which
surface."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser_helpers import ARTIFACTS, EventFrames, PageProblems, open_view
from tests.e2e.conftest import FakeLLMProcess
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

# What each language says; the item and the note are worded by the UI from codes.
WORDS = {
    "en": {
        "answered_in_inbox": "answered in the Inbox",
        "allowed_once": "Allowed once",
        "denied": "Denied",
        "just_now": "just now",
    },
    "zh-CN": {
        "answered_in_inbox": "已在收件箱中回答",
        "allowed_once": "已允许一次",
        "denied": "已拒绝",
        "just_now": "刚刚",
    },
}


def write_file(path: str, content: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "write_file", "arguments": {"path": path, "content": content}}]}


def send(page: Page, text: str) -> None:
    page.get_by_test_id("composer-input").fill(text)
    page.get_by_test_id("send-button").click()


def badge(page: Page) -> Locator:
    return page.get_by_test_id("nav-inbox").get_by_test_id("inbox-badge")


def item_about(inbox: Page, file_name: str) -> Locator:
    """The waiting Inbox item whose approval text names `file_name`."""
    return inbox.locator('[data-testid="inbox-item"][data-status="pending"]').filter(
        has=inbox.get_by_test_id("approval-detail").filter(has_text=file_name)
    )


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_the_badge_counts_and_an_answer_in_the_inbox_closes_the_chats_dialog(
    seeded_env: dict[str, str],
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    workspace: Path,
    language: str,
) -> None:
    words = WORDS[language]
    chat, problems, _ = browser_page
    chat.goto(served_ui.start_url)
    expect(chat.get_by_test_id("app-root")).to_be_visible()
    open_view(chat, "settings")
    chat.get_by_test_id("language-select").select_option(language)
    expect(chat.locator("html")).to_have_attribute("lang", language)
    expect(badge(chat)).to_have_count(0)  # nothing waits yet

    # A chat's turn asks to write a file: its dialog shows, and the badge counts it.
    fresh_llm.script(
        write_file("chat.txt", "from the chat"),
        write_file("quick.txt", "from quick ask"),
        {"text": "First turn finished."},
        {"text": "Second turn finished."},
    )
    chat.get_by_test_id("new-chat").click()
    chat.wait_for_url(re.compile(r".*#/chat/[0-9a-f-]+$"))
    send(chat, "Write chat.txt")
    dialog = chat.get_by_test_id("approval-dialog")
    expect(dialog).to_be_visible()
    expect(badge(chat)).to_have_text("1")
    dialog_summary = dialog.get_by_test_id("approval-summary").inner_text()
    dialog_detail = dialog.get_by_test_id("approval-detail").inner_text()

    # A Quick Ask window (the same app in another page) asks too: two items wait.
    # Another window of the same signed-in browser: a context with this page's cookies.
    browser = chat.context.browser
    assert browser is not None
    context = browser.new_context(storage_state=chat.context.storage_state())
    ui = chat.url.split("#")[0]  # the UI's private prefix (its cookie's path)
    quick = context.new_page()
    problems.watch(quick)
    quick.goto(ui + "#/quick")
    expect(quick.get_by_test_id("quick-view")).to_be_visible()
    send(quick, "Write quick.txt")
    expect(quick.get_by_test_id("quick-approval")).to_be_visible()
    expect(badge(chat)).to_have_text("2")

    # The Inbox in a third window: both items, each saying who asks, exactly what, since when.
    inbox = context.new_page()
    problems.watch(inbox)
    inbox.goto(ui + "#/inbox")
    expect(inbox.get_by_test_id("inbox-view")).to_be_visible()
    expect(badge(inbox)).to_have_text("2")
    waiting = inbox.locator('[data-testid="inbox-item"][data-status="pending"]')
    expect(waiting).to_have_count(2)
    item = item_about(inbox, "chat.txt")
    expect(item.get_by_test_id("inbox-who")).to_have_text("Write chat.txt")  # the chat's title
    expect(item.get_by_test_id("approval-summary")).to_have_text(dialog_summary)
    expect(item.get_by_test_id("approval-detail")).to_have_text(dialog_detail)
    expect(item.get_by_test_id("inbox-age")).to_contain_text(words["just_now"])
    assert not (workspace / "chat.txt").exists()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    inbox.screenshot(path=str(ARTIFACTS / f"inbox-{language}.png"), full_page=True)
    item_id = item.get_attribute("data-item-id")

    # Answered in the Inbox (by keyboard): the chat's dialog closes and says where it was answered.
    item.get_by_test_id("approval-once").focus()
    inbox.keyboard.press("Enter")
    expect(dialog).to_have_count(0)
    note = chat.get_by_test_id("approval-answered-elsewhere")
    expect(note).to_contain_text(words["answered_in_inbox"])
    expect(note).to_contain_text(words["allowed_once"])
    expect(note).to_have_attribute("data-by", "inbox")
    chat.screenshot(path=str(ARTIFACTS / f"inbox-answered-elsewhere-{language}.png"))
    expect(chat.get_by_test_id("message-assistant").last).to_have_attribute("data-state", "done")
    assert (workspace / "chat.txt").read_text(encoding="utf-8") == "from the chat"
    expect(badge(chat)).to_have_text("1")
    expect(badge(inbox)).to_have_text("1")
    # The Inbox lists it as answered, by which surface; the keyboard moved on to the next item.
    answered = inbox.locator(f'[data-testid="inbox-item"][data-item-id="{item_id}"]')
    expect(answered).to_have_attribute("data-status", "answered")
    expect(answered.get_by_test_id("inbox-outcome")).to_have_text(
        re.compile(re.escape(words["allowed_once"]) + ".*" + re.escape(words["answered_in_inbox"]))
    )
    expect(answered.get_by_test_id("approval-once")).to_have_count(0)
    expect(waiting.get_by_test_id("approval-once")).to_be_focused()

    # The Quick Ask item, denied in the Inbox: its inline approval closes the same way.
    item_about(inbox, "quick.txt").get_by_test_id("approval-deny").click()
    expect(quick.get_by_test_id("quick-approval")).to_have_count(0)
    quick_note = quick.get_by_test_id("approval-answered-elsewhere")
    expect(quick_note).to_contain_text(words["answered_in_inbox"])
    expect(quick_note).to_contain_text(words["denied"])
    expect(badge(inbox)).to_have_count(0)
    expect(badge(chat)).to_have_count(0)
    expect(inbox.get_by_test_id("inbox-empty")).to_be_visible()
    expect(quick.get_by_test_id("message-assistant").last).to_have_attribute("data-state", "done")
    assert not (workspace / "quick.txt").exists()
    assert problems.messages == []
