"""The composer's MCP menu in real Chromium against `cashcode serve` and the scripted LLM: a
resource of the connected built-in server is attached as a chip and reaches the model with its
URI, a prompt with an argument is inserted as editable text, and after a reload the message
still shows the attached resource."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import UI_TIMEOUT_MS, EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_attachments import last_user_message
from tests.e2e.test_browser_chat import add_provider, last, open_ui
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_attach_a_resource_and_insert_a_prompt_from_the_composer(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-mcp").click()
    stdio = page.locator('[data-testid="mcp-row"][data-name="test_stdio_mcp"]')
    stdio.get_by_test_id("mcp-connect").click()
    expect(stdio).to_have_attribute("data-status", "connected", timeout=90_000)

    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    page.get_by_test_id("mcp-menu-button").click()
    page.get_by_test_id("mcp-resource").filter(has_text="cash://readme").click()
    chip = page.get_by_test_id("attachment-chip")
    expect(chip).to_have_attribute("data-status", "ready")
    expect(chip).to_contain_text("test_stdio_mcp · readme")

    page.get_by_test_id("mcp-menu-button").click()
    page.get_by_test_id("mcp-tab-prompts").click()
    page.get_by_test_id("mcp-prompt").filter(has_text="greet").click()
    page.get_by_test_id("mcp-arg-person").fill("Ann")
    page.get_by_test_id("mcp-prompt-insert").click()
    expect(page.get_by_test_id("composer-input")).to_have_value("Please greet Ann warmly.")

    fresh_llm.script({"text": "Hello Ann!"})
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-assistant")).to_contain_text("Hello Ann!", timeout=UI_TIMEOUT_MS)
    parts = last_user_message(fresh_llm)["content"]
    assert parts[0] == {"type": "text", "text": "Please greet Ann warmly."}
    assert "[MCP resource cash://readme from server test_stdio_mcp]" in parts[1]["text"]
    assert "a built-in CashCode test server." in parts[1]["text"]

    page.reload()
    expect(last(page, "message-user").get_by_test_id("message-attachment")).to_contain_text(
        "test_stdio_mcp · readme", timeout=UI_TIMEOUT_MS
    )
    assert problems.messages == []
