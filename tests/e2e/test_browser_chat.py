"""The CashCode UI in real Chromium against `cashcode serve` and the scripted fake LLM.

One journey a first-time user takes, from onboarding to a persisted chat, plus page hygiene
(CSP header, no console errors).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser_helpers import (
    ARTIFACTS,
    EventFrames,
    PageProblems,
    open_view,
    wait_for,
)
from tests.e2e.conftest import FakeLLMProcess
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

API_KEY = "sk-browser-test-0123456789"


def open_ui(page: Page, served: ServeProcess) -> None:
    page.goto(served.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()


def last(page: Page, test_id: str) -> Locator:
    return page.get_by_test_id(test_id).last


def send(page: Page, text: str) -> None:
    page.get_by_test_id("composer-input").fill(text)
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-user")).to_contain_text(text)


def add_provider(page: Page, base_url: str) -> None:
    open_view(page, "settings")
    page.get_by_test_id("provider-add").click()
    page.get_by_test_id("provider-name").fill("Fake LLM")
    page.get_by_test_id("provider-kind").select_option("chat_completions")
    page.get_by_test_id("provider-base-url").fill(base_url)
    page.get_by_test_id("provider-key").fill(API_KEY)
    page.get_by_test_id("provider-save").click()
    # Save tests the connection; a working provider closes the dialog and its row says so.
    expect(page.get_by_test_id("add-provider-dialog")).to_be_hidden()
    expect(page.get_by_test_id("provider-row")).to_have_count(1)
    expect(page.get_by_test_id("provider-row")).to_contain_text("Fake LLM")
    expect(page.get_by_test_id("provider-test-result")).to_be_visible()
    # The stored key never comes back to the page: only the mask.
    page.get_by_test_id("provider-edit").click()
    expect(page.get_by_test_id("provider-key")).to_have_value("********")
    page.get_by_test_id("provider-edit").click()
    page.get_by_test_id("provider-test").click()
    expect(page.get_by_test_id("provider-test-result")).to_be_visible()


def pick_model(page: Page, model: str) -> None:
    picker = page.get_by_test_id("model-picker")
    expect(picker.locator("option", has_text=model).first).to_be_attached()
    option = picker.locator("option", has_text=model).first
    picker.select_option(option.get_attribute("value"))


def test_the_served_page_has_a_csp_header_and_no_console_errors(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    response = page.goto(served_ui.start_url)
    assert response is not None and response.ok
    assert response.url.startswith(served_ui.base_url + "/")
    assert "token=" not in response.url  # redirected to the clean address
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "object-src 'none'" in csp
    expect(page.get_by_test_id("app-root")).to_be_visible()
    expect(page.get_by_test_id("onboarding")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert problems.messages == []


def test_onboarding_adds_a_provider_from_a_preset_and_tests_it_on_save(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    """Issue 41: "Add a provider" on the first-run screen is a focused dialog with presets; Save
    tests the connection and, when it works, closes and lists the server's models."""
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    expect(page.get_by_test_id("onboarding")).to_be_visible()
    page.get_by_test_id("onboarding-open-settings").click()
    dialog = page.get_by_test_id("add-provider-dialog")
    expect(dialog).to_be_visible()
    expect(page.get_by_test_id("provider-preset-openai")).to_be_focused()  # Esc works at once
    page.get_by_test_id("provider-preset-llamacpp").click()
    expect(page.get_by_test_id("provider-name")).to_have_value("llama.cpp")
    expect(page.get_by_test_id("provider-base-url")).to_have_value("http://127.0.0.1:8080/v1")
    expect(page.get_by_test_id("provider-key-hint")).not_to_contain_text("********")
    page.get_by_test_id("provider-base-url").fill(fresh_llm.openai_base_url)
    # Every control uses the app's font, a bare one too (buttons drew in a serif face in the
    # window: a control does not inherit the page's font unless the style sheet says so).
    off_font = page.evaluate(
        """() => {
          const bare = document.createElement('button');
          bare.textContent = 'bare';
          document.body.append(bare);
          const off = [...document.querySelectorAll('button, input, select, textarea')]
            .filter((el) => getComputedStyle(el).fontFamily !== getComputedStyle(document.body).fontFamily)
            .map((el) => el.outerHTML.slice(0, 80));
          bare.remove();
          return off;
        }"""
    )
    assert off_font == []
    page.get_by_test_id("provider-save").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("onboarding")).to_contain_text("fake-model")
    tested = [r for r in fresh_llm.requests() if str(r["path"]).endswith("/models")]
    assert tested, "Save did not test the connection"
    assert problems.messages == []


def test_a_first_run_user_sets_up_a_provider_chats_approves_a_tool_stops_retries_and_finds_it_after_reload(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    workspace: Path,
) -> None:
    page, problems, frames = browser_page
    open_ui(page, served_ui)
    expect(page.get_by_test_id("onboarding")).to_be_visible()

    add_provider(page, fresh_llm.openai_base_url)

    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    pick_model(page, "fake-model")

    # A streamed answer: the chunks are 50 ms apart, so they reach the page in separate
    # WebSocket batches (the server coalesces only within ~16 ms).
    fresh_llm.script({"text": "Hello from the browser test.", "chunk_size": 4, "delay_s": 0.05})
    send(page, "Hi there")
    answer = last(page, "message-assistant")
    expect(answer).to_have_attribute("data-state", "done")
    expect(answer).to_contain_text("Hello from the browser test.")
    wait_for(page, lambda: frames.batches_with("turn_done") == 1, "the turn_done batch")
    assert frames.batches_with("delta") >= 3, frames.batches

    # A tool call that needs approval, with the exact action shown.
    fresh_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}]},
        {"text": "I wrote a.txt.", "chunk_size": 4},
    )
    send(page, "Please write a.txt")
    dialog = page.get_by_test_id("approval-dialog")
    expect(dialog).to_be_visible()
    target = os.path.realpath(workspace / "a.txt")
    expect(page.get_by_test_id("approval-summary")).to_have_text("Write 1 bytes to a new file:")
    expect(page.get_by_test_id("approval-detail")).to_have_text(target)
    page.get_by_test_id("approval-once").click()
    expect(dialog).to_be_hidden()
    expect(last(page, "tool-card")).to_contain_text("Wrote 1 bytes to a.txt.")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    expect(last(page, "message-assistant")).to_contain_text("I wrote a.txt.")
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "x"

    # Stop during a slow stream: the partial answer stays, marked Stopped, and the next turn's
    # context holds it (issue 25).
    fresh_llm.script({"text": "slow " * 400, "chunk_size": 1, "delay_s": 0.05})
    send(page, "Tell me a long story")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "streaming")
    expect(last(page, "message-assistant")).to_contain_text("slow")
    page.get_by_test_id("stop-button").click()
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "cancelled")
    expect(last(page, "message-assistant")).to_contain_text("Stopped")
    expect(page.get_by_test_id("retry-button")).to_have_count(0)
    fresh_llm.script({"text": "The retried answer.", "chunk_size": 3})
    send(page, "Go on")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    expect(last(page, "message-assistant")).to_contain_text("The retried answer.")
    context = [r for r in fresh_llm.requests() if "chat" in r["path"]][-1]["body"]["messages"]
    said = [(m["role"], str(m.get("content") or "")) for m in context if m["role"] != "system"]
    assert said[-3][0] == "user" and said[-3][1] == "Tell me a long story"
    assert said[-2][0] == "assistant" and said[-2][1].startswith("slow")
    assert said[-1] == ("user", "Go on")

    # Theme and language.
    open_view(page, "settings")
    html = page.locator("html")
    page.get_by_test_id("theme-select").select_option("dark")
    expect(html).to_have_class(_has_class("theme-dark"))
    page.get_by_test_id("theme-select").select_option("light")
    expect(html).to_have_class(_has_class("theme-light"))
    page.get_by_test_id("language-select").select_option("zh-CN")
    expect(page.get_by_test_id("nav-settings")).to_contain_text("设置")

    # Everything finished survives a reload.
    page.reload()
    expect(page.get_by_test_id("app-root")).to_be_visible()
    expect(page.get_by_test_id("nav-settings")).to_contain_text("设置")
    page.get_by_test_id("nav-chat").click()
    expect(page.get_by_test_id("chat-list-item")).to_have_count(1)
    page.get_by_test_id("chat-list-item").first.click()
    expect(page.get_by_test_id("message-user").first).to_contain_text("Hi there")
    expect(page.get_by_test_id("message-assistant").first).to_contain_text("Hello from the browser test.")
    expect(page.get_by_test_id("message-assistant").last).to_contain_text("The retried answer.")
    expect(page.locator('[data-testid="message-assistant"][data-state="cancelled"]')).to_have_count(1)

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-e2e.png"), full_page=True)
    assert problems.messages == []


def _has_class(name: str) -> re.Pattern[str]:
    return re.compile(rf"(^|\s){re.escape(name)}(\s|$)")
