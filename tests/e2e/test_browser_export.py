"""Export a chat (Markdown and JSON downloads) and import the JSON back, in real Chromium
against `cashcode serve`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_export_markdown_and_json_then_import_the_json_back(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    tmp_path: Path,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    fresh_llm.script({"text": "An answer worth keeping: 值得保存。"})
    send(page, "Keep this conversation")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")

    page.get_by_test_id("export-menu").click()
    with page.expect_download() as md_info:
        page.get_by_test_id("export-md").click()
    md_path = tmp_path / md_info.value.suggested_filename
    md_info.value.save_as(md_path)
    assert md_path.name == "Keep-this-conversation.md"
    assert "An answer worth keeping: 值得保存。" in md_path.read_text(encoding="utf-8")
    expect(page.get_by_test_id("export-notice")).to_contain_text("Keep-this-conversation.md")

    page.get_by_test_id("export-menu").click()
    with page.expect_download() as json_info:
        page.get_by_test_id("export-json").click()
    json_path = tmp_path / json_info.value.suggested_filename
    json_info.value.save_as(json_path)
    doc = json.loads(json_path.read_text(encoding="utf-8"))
    assert [m["content"] for m in doc["messages"]] == [
        "Keep this conversation",
        "An answer worth keeping: 值得保存。",
    ]

    # Delete the chat, then import it back from the file.
    page.get_by_test_id("chat-list-item").first.hover()
    page.get_by_test_id("chat-delete").first.click()
    page.get_by_test_id("confirm-ok").click()
    expect(page.get_by_test_id("chat-list-item")).to_have_count(0)
    page.get_by_test_id("import-file").set_input_files(str(json_path))
    expect(page.get_by_test_id("chat-list-item")).to_have_count(1)
    expect(page.get_by_test_id("message-user").first).to_contain_text("Keep this conversation")
    expect(page.get_by_test_id("message-assistant").first).to_contain_text("An answer worth keeping")

    # A file that is not an export is refused with a message, and nothing is added.
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    page.get_by_test_id("import-file").set_input_files(str(bad))
    expect(page.get_by_test_id("import-error")).to_contain_text("not a CashCode chat export")
    expect(page.get_by_test_id("chat-list-item")).to_have_count(1)
    assert problems.messages == []
