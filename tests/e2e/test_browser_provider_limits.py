"""The provider form's limits (issue 34): the timeout, temperature and max output tokens typed
in Settings → Providers reach the model request (the fake LLM's request log)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view, wait_for
from tests.e2e.conftest import FakeLLMProcess
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

API_KEY = "sk-browser-limits-0123456789"


def test_limits_typed_in_the_provider_form_reach_the_request(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    open_view(page, "settings")
    page.get_by_test_id("provider-add").click()
    page.get_by_test_id("provider-name").fill("Local llama")
    page.get_by_test_id("provider-kind").select_option("chat_completions")
    page.get_by_test_id("provider-base-url").fill(fresh_llm.openai_base_url)
    page.get_by_test_id("provider-key").fill(API_KEY)
    page.get_by_test_id("provider-timeout").fill("42")
    page.get_by_test_id("provider-add-model-row").click()
    expect(page.get_by_test_id("provider-model-id")).to_have_value("*")
    page.get_by_test_id("provider-temperature").fill("0.3")
    page.get_by_test_id("provider-max-tokens").fill("50")
    page.get_by_test_id("provider-save").click()
    expect(page.get_by_test_id("add-provider-dialog")).to_be_hidden()
    expect(page.get_by_test_id("provider-row")).to_contain_text("Local llama")

    fresh_llm.script({"text": "Limited answer."})
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    page.get_by_test_id("composer-input").fill("hi")
    page.get_by_test_id("send-button").click()
    expect(page.get_by_test_id("message-assistant").last).to_contain_text("Limited answer.")

    def asked() -> list[dict[str, object]]:
        return [r for r in fresh_llm.requests() if r["path"] == "/v1/chat/completions"]

    wait_for(page, lambda: bool(asked()), "the model request")
    request = asked()[0]
    body = request["body"]
    assert isinstance(body, dict) and (body["temperature"], body["max_tokens"]) == (0.3, 50)
    headers = request["headers"]
    assert isinstance(headers, dict) and headers["x-stainless-read-timeout"] == "42.0"
    assert problems.messages == []
