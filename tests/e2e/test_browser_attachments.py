"""Attachments through the real UI in Chromium against `cashcode serve` and the scripted LLM:
a PNG dropped on the composer reaches the server as an image part for each provider kind, a
text file arrives with its name, over-limit files and non-vision models are refused with a
message, and thumbnails come back after a reload."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.attachments.helpers import png
from tests.e2e.browser_helpers import UI_TIMEOUT_MS, EventFrames, PageProblems, open_view
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import API_KEY, last, open_ui, pick_model
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

IMAGE = png(3, 3)
DATA_URL = "data:image/png;base64," + base64.b64encode(IMAGE).decode()

DROP_JS = """([name, type, b64, size]) => {
  const bytes = b64 ? Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)) : new Uint8Array(size);
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, { type }));
  const target = document.querySelector('[data-testid="composer-input"]');
  for (const kind of ["dragenter", "dragover", "drop"]) {
    target.dispatchEvent(new DragEvent(kind, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }
}"""


def drop_file(page: Page, name: str, mime: str, data: bytes | None = None, size: int = 0) -> None:
    encoded = base64.b64encode(data).decode() if data is not None else ""
    page.evaluate(DROP_JS, [name, mime, encoded, size])


def save_provider(page: Page, name: str, kind: str, base_url: str) -> None:
    open_view(page, "settings")
    rows = page.get_by_test_id("provider-row")
    count = rows.count()
    page.get_by_test_id("provider-add").click()
    page.get_by_test_id("provider-name").fill(name)
    page.get_by_test_id("provider-kind").select_option(kind)
    page.get_by_test_id("provider-base-url").fill(base_url)
    page.get_by_test_id("provider-key").fill(API_KEY if kind != "ollama" else "")
    page.get_by_test_id("provider-save").click()
    # Save tests the connection: a working one closes the dialog; one that cannot connect (a
    # placeholder address some tests use) stays saved and is kept with "Keep it and close".
    dialog = page.get_by_test_id("add-provider-dialog")
    keep = page.get_by_test_id("add-provider-keep")
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="add-provider-dialog"]')
          || document.querySelector('[data-testid="add-provider-keep"]')"""
    )
    if keep.count():
        keep.click()
    expect(dialog).to_be_hidden()
    expect(rows).to_have_count(count + 1)


def mark_vision(page: Page, provider: str, model: str) -> None:
    row = page.get_by_test_id("provider-row").filter(has_text=provider)
    row.get_by_test_id("provider-models").click()
    toggle = row.locator(f'[data-testid="vision-toggle"][data-model="{model}"]')
    toggle.check()
    expect(toggle).to_be_checked()


def last_user_message(llm: FakeLLMProcess) -> Any:
    body = [r for r in llm.requests() if r["method"] == "POST" and isinstance(r["body"], dict)][-1]["body"]
    items = body.get("messages") or body.get("input")
    return [m for m in items if m.get("role") == "user"][-1]


def send_with_png(page: Page, llm: FakeLLMProcess, text: str) -> None:
    drop_file(page, "dot.png", "image/png", IMAGE)
    chip = page.get_by_test_id("attachment-chip")
    expect(chip).to_have_attribute("data-status", "ready")
    expect(chip.locator("img")).to_be_visible()
    llm.script({"text": f"Seen: {text}"})
    page.get_by_test_id("composer-input").fill(text)
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-assistant")).to_contain_text(f"Seen: {text}", timeout=UI_TIMEOUT_MS)
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done", timeout=UI_TIMEOUT_MS)
    expect(last(page, "message-user").get_by_test_id("message-attachment")).to_contain_text("dot.png")


def test_files_on_the_composer_reach_every_provider_kind(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    tmp_path: Path,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)

    # Chat Completions: the user marks the model as able to see images.
    save_provider(page, "Fake Chat", "chat_completions", fresh_llm.openai_base_url)
    mark_vision(page, "Fake Chat", "fake-model")
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    send_with_png(page, fresh_llm, "chat completions image")
    assert last_user_message(fresh_llm)["content"] == [
        {"type": "text", "text": "chat completions image"},
        {"type": "image_url", "image_url": {"url": DATA_URL}},
    ]

    # A text file picked with the file input arrives with its name.
    notes = tmp_path / "notes.txt"
    notes.write_text("Buy milk. 买牛奶。", encoding="utf-8")
    page.get_by_test_id("attach-input").set_input_files(str(notes))
    expect(page.get_by_test_id("attachment-chip")).to_have_attribute("data-status", "ready")
    fresh_llm.script({"text": "Noted."})
    page.get_by_test_id("composer-input").fill("Read my notes")
    page.get_by_test_id("send-button").click()
    expect(last(page, "message-assistant")).to_contain_text("Noted.", timeout=UI_TIMEOUT_MS)
    parts = last_user_message(fresh_llm)["content"]
    assert parts[1] == {
        "type": "text",
        "text": '<attachment name="notes.txt" type="text/plain">\nBuy milk. 买牛奶。\n</attachment>',
    }

    # Over the limit: refused on the composer with a message, nothing attached.
    drop_file(page, "huge.png", "image/png", None, 21 * 1024 * 1024)
    expect(page.get_by_test_id("attachment-notice")).to_contain_text("huge.png is larger than 20 MB")
    expect(page.get_by_test_id("attachment-chip")).to_have_count(0)

    # Responses.
    save_provider(page, "Fake Responses", "responses", fresh_llm.openai_base_url)
    mark_vision(page, "Fake Responses", "fake-model")
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    pick_model(page, "Fake Responses · fake-model")
    send_with_png(page, fresh_llm, "responses image")
    assert last_user_message(fresh_llm)["content"] == [
        {"type": "input_text", "text": "responses image"},
        {"type": "input_image", "image_url": DATA_URL},
    ]

    # Ollama reports vision itself (/api/show); its OpenAI-compatible /v1 gets image_url parts.
    save_provider(page, "Fake Ollama", "ollama", fresh_llm.base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    pick_model(page, "Fake Ollama · fake-vision")
    send_with_png(page, fresh_llm, "ollama image")
    assert last_user_message(fresh_llm)["content"] == [
        {"type": "text", "text": "ollama image"},
        {"type": "image_url", "image_url": {"url": DATA_URL}},
    ]

    # A model without vision: a clear message, and nothing reaches the server.
    pick_model(page, "Fake Ollama · fake-tools")
    before = len(fresh_llm.requests())
    drop_file(page, "dot.png", "image/png", IMAGE)
    expect(page.get_by_test_id("attachment-chip")).to_have_attribute("data-status", "ready")
    page.get_by_test_id("composer-input").fill("and now?")
    page.get_by_test_id("send-button").click()
    expect(page.get_by_role("alert").filter(has_text="cannot see images")).to_be_visible()
    assert [r for r in fresh_llm.requests()[before:] if "chat" in r["path"]] == []

    # After a reload the sent image shows again as a thumbnail.
    page.reload()
    page.get_by_test_id("chat-list-item").filter(has_text="ollama image").click()
    expect(page.get_by_test_id("message-attachment").locator("img")).to_be_visible()
    assert problems.messages == []
