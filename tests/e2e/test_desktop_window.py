"""Desktop end to end: the REAL window (`python -m app.desktop`) under Xvfb, driven over CDP,
against the scripted fake LLM server in its own process. Needs the built UI (app/web)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Playwright, expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import ROOT, DesktopProcess, invoke
from tests.e2e.browser_helpers import open_view
from tests.e2e.conftest import FakeLLMProcess

pytestmark = [
    pytest.mark.desktop,
    # Under CI the UI is always built first (build.py test), so there it must never skip.
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(180),
]

WAIT_MS = 30_000
expect.set_options(timeout=WAIT_MS)
SCREENSHOT = ROOT / "artifacts" / "desktop-e2e.png"


@pytest.fixture
def pw() -> Iterator[Playwright]:
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture
def window(desktop_app: DesktopProcess, pw: Playwright) -> Page:
    """The app's page once the composer is usable."""
    page = desktop_app.attach(pw)
    page.set_default_timeout(WAIT_MS)
    expect(page.get_by_test_id("composer-input")).to_be_editable()
    return page


def send(page: Page, text: str) -> None:
    page.get_by_test_id("composer-input").fill(text)
    page.get_by_test_id("send-button").click()


def last_assistant(page: Page) -> Locator:
    return page.get_by_test_id("message-assistant").last


def test_the_ui_is_served_from_a_fresh_loopback_port_not_a_fixed_one(window: Page) -> None:
    origin = re.match(r"^http://127\.0\.0\.1:(\d+)/index\.html", window.url)
    assert origin is not None, window.url
    assert int(origin.group(1)) != 42001  # pywebview's fixed default would let parallel runs clash


def test_a_message_streams_into_the_window_token_by_token(window: Page, fresh_llm: FakeLLMProcess) -> None:
    answer = "Streaming works in the real window, one small token at a time."
    fresh_llm.script({"text": answer, "chunk_size": 2, "delay_s": 0.03})
    send(window, "Say something")
    reply = last_assistant(window)
    expect(reply).to_have_attribute("data-state", "streaming")
    # Seen part-way through: the text grows on screen before the turn ends.
    window.wait_for_function(
        "el => el.innerText.length > 0 && el.getAttribute('data-state') === 'streaming'",
        arg=reply.element_handle(),
    )
    expect(reply).to_have_attribute("data-state", "done")
    expect(reply).to_contain_text(answer)


def test_an_approval_answered_in_the_window_lets_the_tool_write_the_file(
    window: Page, fresh_llm: FakeLLMProcess, workspace: Path
) -> None:
    fresh_llm.script(
        {
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": "hello.txt", "content": "hi from e2e"}}
            ]
        },
        {"text": "I wrote hello.txt."},
    )
    send(window, "Write hello.txt")
    dialog = window.get_by_test_id("approval-dialog")
    expect(dialog).to_be_visible()
    assert not (workspace / "hello.txt").exists()  # nothing happens before the answer
    window.get_by_test_id("approval-once").click()
    expect(dialog).to_be_hidden()
    expect(last_assistant(window)).to_have_attribute("data-state", "done")
    expect(last_assistant(window)).to_contain_text("I wrote hello.txt.")
    assert (workspace / "hello.txt").read_text(encoding="utf-8") == "hi from e2e"


def test_stop_during_a_slow_stream_leaves_the_turn_cancelled(window: Page, fresh_llm: FakeLLMProcess) -> None:
    fresh_llm.script({"text": "slow " * 400, "chunk_size": 5, "delay_s": 0.05})
    send(window, "Talk slowly")
    reply = last_assistant(window)
    window.wait_for_function("el => el.innerText.includes('slow')", arg=reply.element_handle())
    window.get_by_test_id("stop-button").click()
    expect(reply).to_have_attribute("data-state", "cancelled")


def test_two_thousand_fast_tokens_arrive_complete_and_in_order(
    window: Page, fresh_llm: FakeLLMProcess
) -> None:
    tokens = [f"w{i:04d}" for i in range(2000)]
    text = "".join(t + " " for t in tokens)  # 6 characters per token: one token per chunk
    fresh_llm.script({"text": text, "chunk_size": 6, "delay_s": 0.001})  # ~1,000 tokens/s
    send(window, "Count")
    reply = last_assistant(window)
    expect(reply).to_have_attribute("data-state", "done", timeout=60_000)
    # textContent, not innerText: a finished message gets `content-visibility: auto`, and until
    # the next frame decides it is on screen Chromium reports its innerText as "" (a busy CI
    # machine read it in that gap). textContent is the DOM itself, which is what is checked here.
    text = reply.text_content() or ""
    assert re.findall(r"w\d{4}", text) == tokens  # every token, once, in order


def test_theme_and_language_switch_in_the_window(window: Page, fresh_llm: FakeLLMProcess) -> None:
    open_view(window, "settings")
    html = window.locator("html")
    window.get_by_test_id("theme-select").select_option("dark")
    expect(html).to_have_class(_contains("theme-dark"))
    window.get_by_test_id("theme-select").select_option("light")
    expect(html).to_have_class(_contains("theme-light"))
    expect(window.get_by_test_id("nav-settings")).to_contain_text("Settings")
    window.get_by_test_id("language-select").select_option("zh-CN")
    expect(window.get_by_test_id("nav-settings")).to_contain_text("设置")
    settings = invoke(window, "settings.get")["data"]
    assert (settings["theme"], settings["language"]) == ("light", "zh-CN")  # saved, not just shown
    window.get_by_test_id("language-select").select_option("en")
    expect(window.get_by_test_id("nav-settings")).to_contain_text("Settings")


def test_a_screenshot_of_a_finished_chat_is_saved(window: Page, fresh_llm: FakeLLMProcess) -> None:
    fresh_llm.script({"text": "Here is **CashCode** running in its real desktop window."})
    send(window, "Hello CashCode")
    expect(last_assistant(window)).to_have_attribute("data-state", "done")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    window.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000


def test_closing_the_window_ends_the_app_and_leaves_no_processes(
    desktop_app: DesktopProcess, window: Page, fresh_llm: FakeLLMProcess
) -> None:
    # A turn is still streaming when the window closes (WM_DELETE_WINDOW, as the close button
    # sends): it must be cancelled, not left running, and nothing may outlive the app.
    fresh_llm.script({"text": "never finished " * 500, "chunk_size": 4, "delay_s": 0.05})
    send(window, "Keep talking")
    expect(last_assistant(window)).to_have_attribute("data-state", "streaming")
    # Wait for streamed text, so the request has really reached the server before closing.
    expect(last_assistant(window)).to_contain_text("never finished")
    assert desktop_app.close_window() == 0, desktop_app.tail()
    assert desktop_app.leftovers() == []
    assert _stream_was_abandoned(fresh_llm)


def _stream_was_abandoned(llm: FakeLLMProcess, timeout_s: float = 10.0) -> bool:
    """Bounded wait: the server notices the closed connection at its next write."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        [stream] = [r for r in llm.requests() if r["path"].endswith("/chat/completions")]
        if stream["client_disconnected"]:
            return not stream["completed"]
        time.sleep(0.05)
    return False


def _contains(cls: str) -> re.Pattern[str]:
    return re.compile(rf"(^|\s){re.escape(cls)}(\s|$)")
