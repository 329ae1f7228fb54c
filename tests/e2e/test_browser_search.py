"""Search across chats in real Chromium against `cashcode serve`: English and Chinese phrases,
highlighted snippets, and opening the chat at the hit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def _chat(page: Page, llm: FakeLLMProcess, exchanges: list[tuple[str, str]]) -> None:
    page.get_by_test_id("new-chat").click()
    for question, answer in exchanges:
        llm.script({"text": answer})
        send(page, question)
        expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
        expect(last(page, "message-assistant")).to_contain_text(answer)


def test_search_finds_english_and_chinese_phrases_and_opens_the_right_message(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()

    filler = [(f"Filler question {i}", "Filler answer. " * 30) for i in range(6)]
    _chat(
        page,
        fresh_llm,
        [("Where is the quarterly report?", "The quarterly report is in the shared folder."), *filler],
    )
    _chat(page, fresh_llm, [("今天天气怎么样？", "今天天气很好，适合散步。")])
    _chat(page, fresh_llm, [("Plan a trip", "Pack light and book early.")])

    box = page.get_by_test_id("chat-search")
    box.fill("quarterly report")
    hits = page.get_by_test_id("search-hit")
    expect(hits).to_have_count(2)  # the question and the answer
    answer_hit = hits.filter(has_text="shared folder")
    expect(answer_hit.locator("mark")).to_have_text(["quarterly", "report"])
    answer_hit.click()

    target = page.get_by_test_id("message-assistant").first
    expect(target).to_contain_text("The quarterly report is in the shared folder.")
    expect(target).to_have_class(_flash())
    expect(target).to_be_in_viewport()
    expect(page.get_by_test_id("message-user").first).to_contain_text("Where is the quarterly report?")

    box.fill("天气很好")
    expect(hits).to_have_count(1)
    expect(hits.first.locator("mark")).to_have_text(["天气很好"])
    hits.first.click()
    chinese = page.get_by_test_id("message-assistant").first
    expect(chinese).to_contain_text("今天天气很好，适合散步。")
    expect(chinese).to_have_class(_flash())
    assert problems.messages == []


def _flash() -> re.Pattern[str]:
    return re.compile(r"(^|\s)search-flash(\s|$)")


def test_search_groups_per_chat_names_versions_and_files_and_opens_an_old_version_without_switching(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    tmp_path: Path,
) -> None:
    """Issue 25 item 7: a chat with a regenerated answer; a word of the older answer is found
    as "version 1/2"; opening it shows that version with a notice while the stored current
    version stays (a reload shows the newer answer); Back to current and Make current."""
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()

    _chat(page, fresh_llm, [("Name a fruit", "Mango is sweet.")])
    fresh_llm.script({"text": "Papaya is better."})
    page.get_by_test_id("regenerate-message").last.click()
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    expect(last(page, "message-assistant")).to_contain_text("Papaya is better.")
    fruit = page.get_by_test_id("chat-list-item").first
    expect(fruit.get_by_test_id("chat-meta")).to_contain_text("2 messages")  # 3 stored rows

    # A second chat with a text file: its text is searched too.
    page.get_by_test_id("new-chat").click()
    notes = tmp_path / "notes.txt"
    notes.write_text("Errands: repaint the zebra crossing, buy a mango.", encoding="utf-8")
    page.get_by_test_id("attach-input").set_input_files(str(notes))
    expect(page.get_by_test_id("attachment-chip")).to_have_attribute("data-status", "ready")
    fresh_llm.script({"text": "Noted."})
    send(page, "Read my errands")
    expect(last(page, "message-assistant")).to_contain_text("Noted.")

    box = page.get_by_test_id("chat-search")
    box.fill("mango")
    groups = page.get_by_test_id("search-group")
    expect(groups).to_have_count(2)  # one entry per chat
    errands = groups.filter(has_text="Read my errands")
    expect(errands.get_by_test_id("search-hit-attachment")).to_have_text("in attachment notes.txt")
    fruit_group = groups.filter(has_text="Name a fruit")
    expect(fruit_group.get_by_test_id("search-hit-count")).to_have_text("1 hit")
    old_hit = fruit_group.get_by_test_id("search-hit")
    expect(old_hit.get_by_test_id("search-hit-version")).to_have_text("version 1/2")
    expect(old_hit.get_by_test_id("search-hit-date")).to_have_text("just now")

    def open_old_version() -> None:
        box.fill("mango")
        group = page.get_by_test_id("search-group").filter(has_text="Name a fruit")
        group.get_by_test_id("search-hit").click()
        expect(last(page, "message-assistant")).to_contain_text("Mango is sweet.")
        expect(page.get_by_test_id("viewing-version")).to_contain_text("You are viewing version 1/2")
        expect(page.get_by_test_id("branch-position")).to_have_text("1/2")

    open_old_version()
    # Nothing was switched: a reload shows the chat's current version, without the notice.
    page.reload()
    expect(last(page, "message-assistant")).to_contain_text("Papaya is better.")
    expect(page.get_by_test_id("viewing-version")).to_have_count(0)

    open_old_version()
    page.get_by_test_id("back-to-current").click()
    expect(last(page, "message-assistant")).to_contain_text("Papaya is better.")
    expect(page.get_by_test_id("viewing-version")).to_have_count(0)

    open_old_version()
    page.get_by_test_id("make-current").click()
    expect(page.get_by_test_id("viewing-version")).to_have_count(0)
    expect(last(page, "message-assistant")).to_contain_text("Mango is sweet.")
    page.reload()
    expect(last(page, "message-assistant")).to_contain_text("Mango is sweet.")
    assert problems.messages == []
