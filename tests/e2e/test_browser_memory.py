"""The Memory view in real Chromium against `cashcode serve`: explicit memories, MEMORY.md with
a version and revert, and a clear error for an oversized SOUL.md."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_memory_view_memories_versions_and_soul_limit(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-memory").click()
    expect(page.get_by_test_id("memory-view")).to_be_visible()

    # MEMORY.md: save twice, then revert to the first version.
    editor = page.get_by_test_id("memory-editor")
    editor.fill("- The user's cat is called Miso\n")
    page.get_by_test_id("memory-save").click()
    expect(page.get_by_test_id("memory-version")).to_have_count(1)
    editor.fill("- The user's cat is called Miso\n- Works in Rust\n")
    page.get_by_test_id("memory-save").click()
    expect(page.get_by_test_id("memory-version")).to_have_count(2)
    page.get_by_test_id("memory-revert").first.click()
    expect(page.get_by_test_id("memory-version")).to_have_count(3)
    expect(editor).to_have_value("- The user's cat is called Miso\n")

    # Explicit memories: add two, filter by a tag.
    page.get_by_test_id("memory-tab-memories").click()
    for text, tags in (("Prefers uv for Python", "python tooling"), ("Tea without sugar", "food")):
        page.get_by_test_id("memory-new-content").fill(text)
        page.get_by_test_id("memory-new-tags").fill(tags)
        page.get_by_test_id("memory-add").click()
    expect(page.get_by_test_id("memory-item")).to_have_count(2)
    page.get_by_test_id("memories-search").fill("uv #python")
    page.get_by_test_id("memories-search").press("Enter")
    expect(page.get_by_test_id("memory-item")).to_have_count(1)
    expect(page.get_by_test_id("memory-item")).to_contain_text("Prefers uv for Python")

    # SOUL.md over the limit: a clear error, nothing saved.
    page.get_by_test_id("memory-tab-soul").click()
    page.get_by_test_id("soul-editor").fill("x" * 20_001)
    page.get_by_test_id("soul-save").click()
    expect(page.get_by_test_id("soul-error")).to_contain_text("limited to 20000 characters")
    # The refused save may log the HTTP status; nothing else may go wrong on the page.
    assert [m for m in problems.messages if "Failed to load resource" not in m] == []


def test_a_memory_line_shows_its_source_opens_its_message_and_can_be_forgotten(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    """Issue 39: a Dream line's source opens the message it came from; Forget moves it to the
    Forgotten list and Un-forget is one click."""
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    for question in ("I like green tea.", "My dentist is Dr Okafor"):
        fresh_llm.script({"text": "Noted."})
        send(page, question)
        expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")

    page.get_by_test_id("nav-memory").click()
    fresh_llm.script(
        {"text": "ADD: tea; ADD: dentist"},
        {"text": "# About the user\n- Likes green tea\n- The user's dentist is Dr Okafor\n"},
    )
    page.get_by_test_id("dream-now").click()
    line = page.get_by_test_id("memory-line").filter(has_text="Dr Okafor")
    expect(line).to_have_count(1)
    line.get_by_test_id("memory-line-source").click()
    expect(line.get_by_test_id("memory-line-sources")).to_contain_text("Dream")
    line.get_by_test_id("memory-source-open").click()
    target = page.get_by_test_id("message-user").filter(has_text="My dentist is Dr Okafor")
    expect(target).to_have_class(re.compile(r"(^|\s)search-flash(\s|$)"))

    page.get_by_test_id("nav-memory").click()
    okafor = page.get_by_test_id("memory-line").filter(has_text="Dr Okafor")
    okafor.get_by_test_id("memory-line-forget").click()
    expect(page.get_by_test_id("memory-forgotten-item")).to_contain_text("Dr Okafor")
    expect(okafor).to_have_count(0)
    expect(page.get_by_test_id("memory-editor")).not_to_have_value(re.compile("Okafor"))
    page.get_by_test_id("memory-unforget").click()
    expect(page.get_by_test_id("memory-forgotten-item")).to_have_count(0)
    assert problems.messages == []


def test_a_proposed_line_in_the_review_list_shows_its_source_and_opens_its_message(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    """Issue 39 item 3: with the review inbox on, each proposed line shows the chat, message
    and date it came from, and its link opens that message."""
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    for question in ("I walk to work.", "My dentist is Dr Okafor"):
        fresh_llm.script({"text": "Noted."})
        send(page, question)
        expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")

    page.get_by_test_id("nav-memory").click()
    page.get_by_test_id("dream-review").check()
    expect(page.get_by_test_id("dream-review")).to_be_checked()
    fresh_llm.script(
        {"text": "ADD: dentist"},
        {"text": "# About the user\n- The user's dentist is Dr Okafor\n"},
    )
    page.get_by_test_id("dream-now").click()
    line = page.get_by_test_id("proposal-line").filter(has_text="Dr Okafor")
    expect(line).to_have_count(1)
    source = line.get_by_test_id("proposal-source")
    expect(source).to_have_count(1)
    expect(source).to_contain_text("I walk to work.")  # the chat's title (named by its first message)
    expect(source).to_contain_text("My dentist is Dr Okafor")
    expect(page.get_by_test_id("memory-editor")).not_to_have_value(re.compile("Okafor"))  # not yet accepted
    source.get_by_test_id("proposal-source-open").click()
    target = page.get_by_test_id("message-user").filter(has_text="My dentist is Dr Okafor")
    expect(target).to_have_class(re.compile(r"(^|\s)search-flash(\s|$)"))
    assert problems.messages == []


def test_the_memory_view_switches_to_an_agents_own_memory_with_its_versions(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    """Issue 38: the Memory view picks whose memory it shows; an own-memory agent's MEMORY.md is
    edited, versioned and reverted there, its chat reads it, and the shared memory never shows it."""
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    open_view(page, "agents")
    page.get_by_test_id("agents-new").click()
    page.get_by_test_id("agents-name").fill("Hermit")
    page.get_by_test_id("agents-memory").select_option("own")
    page.get_by_test_id("agents-save").click()
    expect(page.get_by_test_id("agents-item").filter(has_text="Hermit")).to_have_count(1)

    open_view(page, "memory")
    editor = page.get_by_test_id("memory-editor")
    editor.fill("- SHARED-ONLY line\n")
    page.get_by_test_id("memory-save").click()
    expect(page.get_by_test_id("memory-version")).to_have_count(1)

    owner = page.get_by_test_id("memory-owner")
    owner.select_option(label="Hermit (own memory)")
    expect(page.get_by_test_id("memory-doc")).to_contain_text("Hermit's own memory")
    expect(page.get_by_test_id("memory-tab-soul")).to_have_count(0)  # SOUL.md is the app's
    expect(page.get_by_test_id("memory-version")).to_have_count(0)
    expect(editor).to_have_value("")
    editor.fill("- HERMIT-FACT one\n")
    page.get_by_test_id("memory-save").click()
    expect(page.get_by_test_id("memory-version")).to_have_count(1)
    editor.fill("- HERMIT-FACT one\n- HERMIT-FACT two\n")
    page.get_by_test_id("memory-save").click()
    expect(page.get_by_test_id("memory-version")).to_have_count(2)
    page.get_by_test_id("memory-revert").first.click()
    expect(page.get_by_test_id("memory-version")).to_have_count(3)
    expect(editor).to_have_value("- HERMIT-FACT one\n")
    expect(page.get_by_test_id("memory-doc")).to_contain_text("agents")  # its own file's path

    owner.select_option(label="Shared")
    expect(editor).to_have_value("- SHARED-ONLY line\n")
    expect(page.get_by_test_id("memory-version")).to_have_count(1)

    # The agent's chat reads its own memory, not the shared one.
    page.get_by_test_id("nav-chat").click()
    page.keyboard.press("Control+n")
    # The new chat exists: its agent is stored by a request, answered before the message is sent.
    with page.expect_response(lambda r: r.url.endswith("/api/invoke/agents.set_chat_agent") and r.ok):
        page.get_by_test_id("agent-picker").select_option(label="Hermit")
    fresh_llm.script({"text": "I remember."})
    send(page, "what do you remember?")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    system = fresh_llm.requests()[-1]["body"]["messages"][0]["content"]
    assert "SHARED-ONLY" not in system, system[-1500:]
    assert "HERMIT-FACT one" in system and "HERMIT-FACT two" not in system, system[-1500:]
    assert [m for m in problems.messages if "Failed to load resource" not in m] == []
