"""The Tasks view in real Chromium against `cashcode serve` and the scripted fake LLM: create a
task with the schedule builder (its next five runs shown), run it now, see the run in its
history and open the run's chat."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import ARTIFACTS, EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_create_run_now_and_history_with_a_link_to_the_chat(
    seeded_env: dict[str, str],
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    fresh_llm.script({"text": "Your morning briefing: all quiet.", "delay_s": 0.05})

    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-tasks").click()
    expect(page.get_by_test_id("tasks-empty")).to_be_visible()
    page.get_by_test_id("tasks-new").click()
    page.get_by_test_id("tasks-name").fill("Morning")
    page.get_by_test_id("tasks-prompt").fill("Brief me")
    page.get_by_test_id("tasks-kind").select_option("weekly")
    page.get_by_test_id("tasks-time").fill("07:30")
    expect(page.get_by_test_id("tasks-preview").locator("li")).to_have_count(5)
    page.get_by_test_id("tasks-save").click()

    row = page.get_by_test_id("task-Morning")
    expect(row).to_contain_text("every Monday at 07:30")  # worded, not the CLI's "weekly mon@07:30"
    expect(row.get_by_test_id("task-status")).to_have_text("not run yet")
    row.get_by_test_id("task-run").click()
    expect(row.get_by_test_id("task-status")).to_have_text("OK")
    history = page.get_by_test_id("tasks-history")
    expect(history.get_by_test_id("run-status").first).to_have_text("OK")
    # The run's chat is in the sidebar's list at once, without a click or a reload (issue 41).
    page.get_by_test_id("nav-chat").click()
    expect(page.get_by_test_id("chat-list-item")).to_have_count(1)
    expect(page.get_by_test_id("chat-list-item")).to_contain_text("Morning")
    expect(page.get_by_test_id("chat-list-item")).to_contain_text("2 messages")
    page.get_by_test_id("nav-tasks").click()
    row.get_by_test_id("task-history").click()
    expect(history.get_by_test_id("run-chat").first).to_be_visible()  # the history is read first
    # A finished table (issue 41): cells padded, the app's accent on the checkbox, buttons and
    # the chat link styled as buttons (no underline).
    styles = page.evaluate(
        """() => {
          const cell = document.querySelector('[data-testid="tasks-list"] td');
          const box = document.querySelector('[data-testid="task-enabled"]');
          const link = document.querySelector('[data-testid="run-chat"]');
          const run = document.querySelector('[data-testid="task-run"]');
          return {
            padding: parseFloat(getComputedStyle(cell).paddingLeft),
            accent: getComputedStyle(box).accentColor,
            underline: getComputedStyle(link).textDecorationLine,
            linkBorder: getComputedStyle(link).borderTopStyle,
            runHeight: run.getBoundingClientRect().height,
          };
        }"""
    )
    assert styles["padding"] >= 6
    assert styles["accent"] != "auto"
    assert styles["underline"] == "none" and styles["linkBorder"] == "solid"
    assert styles["runHeight"] <= 30  # the compact buttons of a table row
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tasks-view.png"), full_page=True)
    history.get_by_test_id("run-chat").first.click()
    expect(page.get_by_text("Your morning briefing: all quiet.")).to_be_visible()
    assert problems.messages == []
