"""Agents in real Chromium against `cashcode serve` and the scripted fake LLM (issue 38): the
Agents view (add, duplicate, remove), New chat (Ctrl+N) with its agent picker, the chat
answering as the picked agent, the agent in the chat header and the chat list, the next new
chat starting with the last used agent, and a scheduled task run as its agent."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import UI_TIMEOUT_MS, EventFrames, PageProblems, open_view
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import open_ui
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_agents_view_and_the_new_chat_picker(
    seeded_env: dict[str, str],
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)

    open_view(page, "agents")
    items = page.get_by_test_id("agents-item")
    expect(items).to_have_count(1)  # the default agent only
    page.get_by_test_id("agents-new").click()
    page.get_by_test_id("agents-name").fill("Poet")
    page.get_by_test_id("agents-emoji").fill("🪶")
    page.get_by_test_id("agents-persona").fill("You are POET-PERSONA.")
    page.get_by_test_id("agents-all-skills").uncheck()  # no Skills at all
    page.get_by_test_id("agents-save").click()
    expect(items).to_have_count(2)
    poet = items.filter(has_text="Poet")
    expect(poet).to_contain_text("Skills: none")
    poet.get_by_test_id("agents-duplicate").click()
    copy = items.filter(has_text="Poet copy")
    expect(copy).to_have_count(1)
    copy.get_by_test_id("agents-remove").click()
    expect(items).to_have_count(2)

    page.get_by_test_id("nav-chat").click()
    page.keyboard.press("Control+n")
    picker = page.get_by_test_id("agent-picker")
    expect(picker).to_be_visible()
    expect(picker.locator("option:checked")).to_have_text("Default")  # nothing used yet
    picker.select_option(label="🪶 Poet")
    fresh_llm.script({"text": "Roses are red."})
    page.get_by_test_id("composer-input").fill("a poem please")
    page.get_by_test_id("send-button").click()
    expect(page.get_by_text("Roses are red.")).to_be_visible(timeout=UI_TIMEOUT_MS)
    system = fresh_llm.requests()[-1]["body"]["messages"][0]["content"]
    assert system.startswith("You are POET-PERSONA.")
    # Sent: the agent is fixed, shown in the header and in the chat list.
    expect(picker).to_have_count(0, timeout=UI_TIMEOUT_MS)
    expect(page.get_by_test_id("chat-agent")).to_have_text("🪶 Poet", timeout=UI_TIMEOUT_MS)
    expect(page.get_by_test_id("chat-agent-label").first).to_have_text("🪶 Poet")

    page.keyboard.press("Control+n")  # the next new chat starts with the last used agent
    expect(picker.locator("option:checked")).to_have_text("🪶 Poet")

    # A scheduled task names an agent too: its run answers as that agent.
    open_view(page, "tasks")
    page.get_by_test_id("tasks-new").click()
    page.get_by_test_id("tasks-name").fill("Verse")
    page.get_by_test_id("tasks-prompt").fill("A verse")
    page.get_by_test_id("tasks-kind").select_option("weekly")
    page.get_by_test_id("tasks-time").fill("07:30")
    page.get_by_test_id("tasks-agent").select_option(label="🪶 Poet")
    page.get_by_test_id("tasks-save").click()
    fresh_llm.script({"text": "A verse for you."})
    row = page.get_by_test_id("task-Verse")
    row.get_by_test_id("task-run").click()
    expect(row.get_by_test_id("task-status")).to_have_text("OK", timeout=UI_TIMEOUT_MS)
    system = fresh_llm.requests()[-1]["body"]["messages"][0]["content"]
    assert system.startswith("You are POET-PERSONA.")
    assert problems.messages == []
