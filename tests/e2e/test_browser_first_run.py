"""A new user's first run in real Chromium against `cashcode serve`: add a provider, go back to
the chat and send — no model picking, no other setting."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_the_first_message_after_adding_a_provider_streams_without_choosing_a_model(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)

    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    picker = page.get_by_test_id("model-picker")
    # The picker shows the provider and the model that was chosen for the user.
    expect(picker.locator("option:checked")).to_have_text("Fake LLM · fake-model")

    fresh_llm.script({"text": "Welcome aboard.", "chunk_size": 3, "delay_s": 0.02})
    send(page, "My very first message")
    answer = last(page, "message-assistant")
    expect(answer).to_have_attribute("data-state", "done")
    expect(answer).to_contain_text("Welcome aboard.")
    assert fresh_llm.requests()[-1]["body"]["model"] == "fake-model"

    # The chat list shows the message count and when the chat was last active.
    item = page.get_by_test_id("chat-list-item").first
    expect(item.get_by_test_id("chat-meta")).to_contain_text("2 messages")
    expect(item.get_by_test_id("chat-meta")).to_contain_text("just now")
    assert problems.messages == []
