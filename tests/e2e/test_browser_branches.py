"""Edit and regenerate as branches in real Chromium against `cashcode serve` (issue 11): edit →
new branch → switch back and forth → reload → same branches; regenerate likewise; the model
is sent only the active path."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def _answered(page: Page, text: str) -> None:
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    expect(last(page, "message-assistant")).to_contain_text(text)


def _expect_user_texts(page: Page, texts: list[str]) -> None:
    """The shown user messages, waited for: a finished turn reloads the chat's page after its
    answer is already marked done, so the stored path replaces the live entries a moment later."""
    expect(page.get_by_test_id("message-user")).to_have_text(texts)


def _last_model_path(llm: FakeLLMProcess) -> list[tuple[str, Any]]:
    paths = ("/v1/chat/completions", "/v1/responses", "/api/chat")
    body = [r for r in llm.requests() if r["path"] in paths][-1]["body"]
    return [(m["role"], m["content"]) for m in body["messages"] if m["role"] != "system"]


def test_edit_and_regenerate_make_branches_that_switch_and_survive_a_reload(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    for question, answer in (("First question", "First answer"), ("Second question", "Second answer")):
        fresh_llm.script({"text": answer})
        send(page, question)
        _answered(page, answer)
    expect(page.get_by_test_id("branch-switcher")).to_have_count(0)

    # Edit the second question: Enter sends the edit as a new branch. Live entries carry no
    # actions; wait until the reload after turn_done shows both stored questions, or `.last`
    # would be the first question's button.
    expect(page.get_by_test_id("edit-message")).to_have_count(2)
    page.get_by_test_id("edit-message").last.click()
    editor = page.get_by_test_id("message-editor-input")
    expect(editor).to_be_focused()
    editor.fill("Second question, edited")
    fresh_llm.script({"text": "Answer to the edit"})
    editor.press("Enter")
    _answered(page, "Answer to the edit")
    _expect_user_texts(page, ["First question", "Second question, edited"])
    assert _last_model_path(fresh_llm) == [
        ("user", "First question"),
        ("assistant", "First answer"),
        ("user", "Second question, edited"),
    ]
    switcher = page.get_by_test_id("branch-switcher")
    expect(switcher).to_have_count(1)
    expect(switcher.get_by_test_id("branch-position")).to_have_text("2/2")

    # Back to the original version and forth again (the arrow key works as well as the button).
    switcher.get_by_test_id("branch-previous").click()
    _answered(page, "Second answer")
    expect(switcher.get_by_test_id("branch-position")).to_have_text("1/2")
    switcher.get_by_test_id("branch-next").focus()
    page.keyboard.press("ArrowRight")
    _answered(page, "Answer to the edit")
    expect(switcher.get_by_test_id("branch-position")).to_have_text("2/2")

    # Esc leaves an edit without sending anything.
    page.get_by_test_id("edit-message").last.click()
    page.get_by_test_id("message-editor-input").press("Escape")
    expect(page.get_by_test_id("message-editor")).to_have_count(0)

    # Regenerate the answer: a sibling answer, no second copy of the question.
    fresh_llm.script({"text": "Regenerated answer"})
    expect(page.get_by_test_id("regenerate-message")).to_have_count(2)  # the stored answers
    page.get_by_test_id("regenerate-message").last.click()
    _answered(page, "Regenerated answer")
    _expect_user_texts(page, ["First question", "Second question, edited"])
    assert _last_model_path(fresh_llm)[-1] == ("user", "Second question, edited")
    answer_switcher = page.get_by_test_id("branch-switcher").last
    expect(page.get_by_test_id("branch-switcher")).to_have_count(2)
    expect(answer_switcher.get_by_test_id("branch-position")).to_have_text("2/2")
    answer_switcher.get_by_test_id("branch-previous").click()
    _answered(page, "Answer to the edit")

    # A reload shows the same branches, with the version last chosen.
    page.reload()
    expect(page.get_by_test_id("app-root")).to_be_visible()
    _answered(page, "Answer to the edit")
    positions = page.get_by_test_id("branch-position")
    expect(positions).to_have_text(["2/2", "1/2"])
    page.get_by_test_id("branch-previous").first.click()
    _answered(page, "Second answer")
    _expect_user_texts(page, ["First question", "Second question"])
    assert problems.messages == []
