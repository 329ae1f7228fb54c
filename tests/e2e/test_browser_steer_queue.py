"""Steer and queue in real Chromium over `cashcode serve` (issue 35 item 4), in both UI
languages: the composer stays enabled while a turn runs; Steer (button, Ctrl+Enter) reaches the
model after the running tool's result and shows in the turn there; queued messages wait under
the turn (editable, removable) and become the next turns in order; in Quick Ask too, where Stop
gives the queued text back to the composer."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view, wait_for
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

# The tool runs until the test lets it go, so everything below is typed while it runs.
WAIT_FOR_GO = (
    "import os, time\nwhile not os.path.exists('go'):\n    time.sleep(0.05)\nprint('tool finished')\n"
)
SLOW = {"text": "A slow answer that keeps going. " * 60, "chunk_size": 8, "delay_s": 0.05}
SHORTER = {"text": "A slow answer that keeps going. " * 20, "chunk_size": 8, "delay_s": 0.05}
LONG_MS = 30_000
LABELS = {"en": ("Steer", "Queue"), "zh-CN": ("引导", "排队")}


def _model_requests(llm: FakeLLMProcess) -> list[list[dict[str, Any]]]:
    return [r["body"]["messages"] for r in llm.requests() if "chat" in r["path"]]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_steer_and_queue_in_the_chat_and_in_quick_ask(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    workspace: Path,
    language: str,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    open_view(page, "settings")
    page.get_by_test_id("language-select").select_option(language)
    expect(page.locator("html")).to_have_attribute("lang", language)
    steer_label, queue_label = LABELS[language]

    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    page.wait_for_url(re.compile(r".*#/chat/[0-9a-f-]+$"))
    fresh_llm.script(
        {"tool_calls": [{"name": "exec", "arguments": {"argv": [sys.executable, "-c", WAIT_FOR_GO]}}]},
        {"text": "METRIC-ANSWER"},
        {"text": "QUEUED-ONE"},
        {"text": "QUEUED-TWO"},
    )
    send(page, "measure the room")
    page.get_by_test_id("approval-once").click()
    expect(page.get_by_test_id("approval-dialog")).to_be_hidden()

    composer = page.get_by_test_id("composer-input")
    expect(composer).to_be_enabled()
    expect(page.get_by_test_id("steer-button")).to_have_text(steer_label)
    expect(page.get_by_test_id("queue-button")).to_have_text(queue_label)
    composer.fill("use metric units")
    page.get_by_test_id("steer-button").click()
    composer.fill("first follow-up")
    composer.press("Enter")  # Enter queues while the turn runs
    composer.fill("second follow-up")
    page.get_by_test_id("queue-button").click()
    composer.fill("remove me")
    composer.press("Enter")
    waiting = page.get_by_test_id("waiting-message")
    expect(waiting).to_have_count(4)
    expect(waiting.first).to_have_attribute("data-kind", "steer")
    # Queued messages are editable and removable under the running turn.
    waiting.nth(2).get_by_test_id("waiting-text").fill("second follow-up, edited")
    waiting.nth(3).get_by_test_id("waiting-remove").click()
    expect(waiting).to_have_count(3)

    (workspace / "go").write_text("1")
    # The tool's end, the steered call and two queued turns: bounded generously on a busy machine.
    expect(page.get_by_text("QUEUED-TWO")).to_be_visible(timeout=LONG_MS)
    expect(page.get_by_test_id("waiting-message")).to_have_count(0)
    # The steer shows inside the first turn, after its tool card and before its answer.
    first_turn = page.get_by_test_id("message-assistant").first
    expect(first_turn.get_by_test_id("steer-message")).to_contain_text("use metric units")
    order = first_turn.evaluate(
        """el => [...el.querySelectorAll('[data-testid=tool-card], [data-testid=steer-message], p')]
              .map(n => n.dataset.testid || n.textContent.trim()).filter(Boolean)"""
    )
    assert order.index("tool-card") < order.index("steer-message") < order.index("METRIC-ANSWER"), order
    users = page.get_by_test_id("message-user")
    expect(users).to_have_count(3)
    expect(users.nth(1)).to_contain_text("first follow-up")
    expect(users.nth(2)).to_contain_text("second follow-up, edited")

    requests = _model_requests(fresh_llm)
    second = requests[1]
    tool_at = next(i for i, m in enumerate(second) if m["role"] == "tool")
    assert "tool finished" in second[tool_at]["content"]
    assert (second[tool_at + 1]["role"], second[tool_at + 1]["content"]) == ("user", "use metric units")
    assert [r[-1]["content"] for r in requests[2:]] == ["first follow-up", "second follow-up, edited"]

    # Quick Ask: Ctrl+Enter steers, Enter queues, Stop gives the queued text back.
    page.set_viewport_size({"width": 640, "height": 420})
    page.goto(page.url.split("#")[0] + "#/quick")
    expect(page.get_by_test_id("quick-view")).to_be_visible()
    fresh_llm.script(SHORTER, SLOW)
    before = len(_model_requests(fresh_llm))
    composer = page.get_by_test_id("composer-input")
    composer.fill("Quick question")
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-assistant")).to_contain_text("A slow answer", timeout=LONG_MS)
    composer.fill("quick steer")
    composer.press("Control+Enter")
    composer.fill("quick follow-up")
    composer.press("Enter")
    # Given when the first answer ends (the turn goes on with it): the next step streams after it.
    steer_shown = last(page, "message-assistant").get_by_test_id("steer-message")
    expect(steer_shown).to_contain_text("quick steer", timeout=LONG_MS)
    expect(page.get_by_test_id("waiting-message")).to_have_count(1)
    page.get_by_test_id("stop-button").click()
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "cancelled")
    expect(composer).to_have_value(re.compile("quick follow-up"))
    expect(page.get_by_test_id("waiting-message")).to_have_count(0)
    wait_for(page, lambda: len(_model_requests(fresh_llm)) == before + 2, "the steered second request")
    steered = _model_requests(fresh_llm)[-1]
    assert (steered[-1]["role"], steered[-1]["content"]) == ("user", "quick steer")
    page.wait_for_timeout(500)
    assert len(_model_requests(fresh_llm)) == before + 2  # the queued text was not sent
    assert problems.messages == []
