"""The first hour of a newcomer in real Chromium over `cashcode serve` (issue 25): the view
follows the conversation, Esc stops, files dropped on the chat attach, honest states."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, wait_for
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

LONG = "A line of a long answer that keeps going.\n\n" * 60


def _scroll_state(page: Page, root: str = "") -> dict[str, float]:
    return page.evaluate(
        """(root) => {
          const el = document.querySelector(`${root} .message-scroller`);
          return { top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight };
        }""",
        root,
    )


def _at_bottom(page: Page, root: str = "") -> bool:
    s = _scroll_state(page, root)
    return s["height"] - s["top"] - s["client"] <= 80


def _scroll_to_top(page: Page, root: str = "") -> None:
    """Scroll up as a reader does, with the mouse wheel over the list (a move up the app made
    itself, such as the browser clamping the position, does not stop following)."""
    box = page.locator(f"{root} .message-scroller").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -200_000)
    wait_for(page, lambda: _scroll_state(page, root)["top"] < 50, "the wheel scrolled the list up")


def _scrolled_up_shows_jump(page: Page) -> bool:
    """Scroll up as a reader does; a later frame of layout (the stored turn replacing the live
    one on a loaded machine) may still move the view, so the caller retries within a bound."""
    _scroll_to_top(page)
    page.wait_for_timeout(100)
    return _scroll_state(page)["top"] < 50 and page.get_by_test_id("jump-latest").count() == 1


def test_the_view_follows_the_stream_offers_jump_to_latest_and_esc_stops(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    fresh_llm.script({"text": LONG, "chunk_size": 40})
    send(page, "Write a long answer")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    # The stored turn replaces the live one (its actions appear): the layout has settled.
    expect(page.get_by_test_id("regenerate-message")).to_have_count(1)
    wait_for(page, lambda: _at_bottom(page), "the finished answer followed to its end")

    # Scrolled up to read: "Jump to latest" appears; sending brings the new message into view.
    wait_for(page, lambda: _scrolled_up_shows_jump(page), "Jump to latest after scrolling up")
    expect(page.get_by_test_id("jump-latest")).to_be_visible()
    # Centred above the composer, not over the message column's edge (issue 41).
    jump = page.get_by_test_id("jump-latest").bounding_box()
    composer = page.get_by_test_id("composer").bounding_box()
    assert jump is not None and composer is not None
    jump_centre = jump["x"] + jump["width"] / 2
    composer_centre = composer["x"] + composer["width"] / 2
    assert abs(jump_centre - composer_centre) <= 4, (jump, composer)
    assert jump["y"] + jump["height"] <= composer["y"], (jump, composer)
    fresh_llm.script({"text": LONG, "chunk_size": 8, "delay_s": 0.03})
    send(page, "And another one")
    expect(last(page, "message-user")).to_be_in_viewport()
    expect(page.get_by_test_id("jump-latest")).to_have_count(0)
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "streaming")
    page.wait_for_timeout(300)
    assert _at_bottom(page)  # followed while streaming

    # Scrolled up mid-stream: not yanked back; the button brings the tail back and follows it.
    _scroll_to_top(page)
    page.wait_for_timeout(300)
    assert _scroll_state(page)["top"] < 50
    page.get_by_test_id("jump-latest").click()
    wait_for(page, lambda: _at_bottom(page), "following again after Jump to latest")

    # Esc stops the stream, as Stop does.
    page.keyboard.press("Escape")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "cancelled")
    expect(page.get_by_test_id("stop-button")).to_have_count(0)
    assert problems.messages == []


def test_quick_ask_follows_its_stream(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, _, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.set_viewport_size({"width": 640, "height": 420})  # the size of the Quick Ask window
    page.goto(page.url.split("#")[0] + "#/quick")
    expect(page.get_by_test_id("quick-view")).to_be_visible()
    fresh_llm.script({"text": LONG, "chunk_size": 24, "delay_s": 0.02})
    page.get_by_test_id("composer-input").fill("Quick question")
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "streaming")
    # The answer's text has begun (the provider's first request can take seconds on a loaded
    # machine, and the page shows "streaming" from turn_started on).
    expect(last(page, "message-assistant")).to_contain_text("A line of a long answer")
    page.wait_for_timeout(400)
    assert _scroll_state(page)["height"] > _scroll_state(page)["client"]  # it overflows
    assert _at_bottom(page)
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    try:
        wait_for(page, lambda: _at_bottom(page), "Quick Ask followed to the end")
    except AssertionError:
        debug = page.evaluate(
            """async () => ({ s: [...document.querySelectorAll('.message-scroller')].map(e => [e.scrollTop,
              e.scrollHeight, e.clientHeight, e.children.length, e.firstElementChild?.className]),
              jump: document.querySelectorAll('[data-testid=jump-latest]').length,
              msgs: document.querySelectorAll('[data-testid=message-assistant]').length,
              vis: document.visibilityState, focus: document.hasFocus(),
              raf: await Promise.race([new Promise(r => requestAnimationFrame(() => r('raf ok'))),
                                       new Promise(r => setTimeout(() => r('raf timeout'), 2000))]),
              after: document.querySelector('.message-scroller').scrollTop })"""
        )
        raise AssertionError(f"not at the bottom: {debug}") from None


def test_quick_ask_follows_a_follow_up_sent_while_scrolled_up(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    """Issue 41 item 2: in Quick Ask, a follow-up sent while scrolled up to read showed neither
    the question nor its answer (both streamed below the fold); the main chat brings them into
    view. Now Quick Ask does the same."""
    page, _, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.set_viewport_size({"width": 640, "height": 420})  # the size of the Quick Ask window
    page.goto(page.url.split("#")[0] + "#/quick")
    expect(page.get_by_test_id("quick-view")).to_be_visible()
    fresh_llm.script({"text": LONG, "chunk_size": 200})
    page.get_by_test_id("composer-input").fill("First question")
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    wait_for(page, lambda: _scrolled_up_shows_jump(page), "Jump to latest after scrolling up")

    fresh_llm.script({"text": LONG, "chunk_size": 24, "delay_s": 0.02})
    page.get_by_test_id("composer-input").fill("A follow-up")
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-user")).to_contain_text("A follow-up")
    expect(last(page, "message-user")).to_be_in_viewport()
    expect(page.get_by_test_id("jump-latest")).to_have_count(0)
    expect(last(page, "message-assistant")).to_contain_text("A line of a long answer")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    wait_for(page, lambda: _at_bottom(page), "Quick Ask followed the follow-up's answer to its end")
