"""Search across chats in real Chromium against `cashcode serve`: English and Chinese phrases,
highlighted snippets, and opening the chat at the hit."""

from __future__ import annotations

import re

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
