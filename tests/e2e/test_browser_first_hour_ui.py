"""The first hour in real Chromium over `cashcode serve` (issue 25 items 3–7): files dropped on
the chat area attach, the overlay clears, honest states, the Chinese UI, message actions, and
screenshots of the main views for a reviewer."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import zipfile
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.attachments.helpers import png
from tests.e2e.browser_helpers import ROOT, EventFrames, PageProblems, open_view
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.contrast import contrast_report, low_contrast
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

# Drag files over an element and drop them there (or only drag and cancel: no drop event).
DRAG_JS = """([selector, files, drop]) => {
  const dt = new DataTransfer();
  for (const [name, type, b64] of files) {
    dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type }));
  }
  const target = document.querySelector(selector);
  const fire = (kind, init = {}) =>
    target.dispatchEvent(new DragEvent(kind, { dataTransfer: dt, bubbles: true, cancelable: true, ...init }));
  fire("dragenter");
  fire("dragover");
  if (drop) fire("drop");
  else fire("dragleave", { relatedTarget: null });
}"""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _skill_zip() -> str:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("chat-dropped/SKILL.md", "---\nname: chat-dropped\ndescription: Hi.\n---\n# Hi\n")
    return _b64(buf.getvalue())


def test_files_dropped_on_the_chat_area_attach_and_a_skill_zip_still_imports(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_ui)
    add_provider(page, fresh_llm.openai_base_url)
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    fresh_llm.script({"text": "First answer."})
    send(page, "Hello")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")

    # On the message list (not the message box): the file attaches, and the overlay is gone.
    note = ["notes.txt", "text/plain", _b64(b"remember the milk\n")]
    page.evaluate(DRAG_JS, [".message-scroller", [note], True])
    expect(page.get_by_test_id("attachment-chip")).to_contain_text("notes.txt")
    expect(page.get_by_test_id("drop-overlay")).to_have_count(0)
    expect(page.get_by_test_id("drop-refused")).to_have_count(0)
    fresh_llm.script({"text": "Noted."})
    send(page, "Read the note")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    body = str(fresh_llm.requests()[-1])
    assert "remember the milk" in body and "notes.txt" in body

    # A drag that is cancelled leaves no overlay behind.
    page.evaluate(DRAG_JS, [".chat-header", [note], False])
    expect(page.get_by_test_id("drop-overlay")).to_have_count(0)

    # A Skill .zip dropped on the chat area still opens the import preview, not an attachment.
    skill = ["chat-dropped.zip", "application/zip", _skill_zip()]
    page.evaluate(DRAG_JS, [".message-scroller", [skill], True])
    expect(page.get_by_test_id("skill-preview-name")).to_contain_text("chat-dropped")
    expect(page.get_by_test_id("attachment-chip")).to_have_count(0)
    expect(page.get_by_test_id("drop-overlay")).to_have_count(0)
    assert problems.messages == []


SHELL_JS = """() => ({
  page: document.scrollingElement.scrollTop,
  main: document.querySelector(".main").scrollTop,
  layout: document.querySelector(".layout").scrollTop,
  rootTop: document.querySelector("[data-testid='app-root']").getBoundingClientRect().top,
  pane: document.querySelector("[data-testid='settings-scroll']").scrollTop,
  bodyScrolls: document.documentElement.scrollHeight > window.innerHeight,
})"""


def test_settings_navigation_scrolls_its_pane_only_and_fits_the_browser(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    page.set_viewport_size({"width": 1280, "height": 800})
    open_ui(page, served_ui)
    page.get_by_test_id("nav-settings").click()
    expect(page.get_by_test_id("settings-view")).to_be_visible()
    nav = page.locator(".settings-nav")
    # Desktop-only settings are not offered to a browser tab.
    expect(nav.locator("[data-section='desktop']")).to_have_count(0)
    expect(page.locator("#desktop")).to_have_count(0)
    for section in ("about", "local-api", "prices", "general"):
        nav.locator(f"[data-section='{section}']").click()
        page.wait_for_function(
            "(id) => { const p = document.querySelector(\"[data-testid='settings-scroll']\");"
            " const s = document.getElementById(id); const max = p.scrollHeight - p.clientHeight;"
            " return Math.abs(s.getBoundingClientRect().top - p.getBoundingClientRect().top) < 4"
            " || Math.abs(p.scrollTop - max) < 2; }",
            arg=section,
        )
        state = page.evaluate(SHELL_JS)
        assert state["page"] == 0 and state["main"] == 0 and state["layout"] == 0, (section, state)
        assert state["rootTop"] == 0 and not state["bodyScrolls"], (section, state)
    # Under serve the local API is this very server: its state says so, with no dead toggle.
    expect(page.get_by_test_id("local-api-state")).to_contain_text("Running")
    expect(page.get_by_test_id("local-api-served")).to_contain_text(served_ui.start_url.split("/?")[0])
    expect(page.get_by_test_id("local-api")).to_have_count(0)
    assert problems.messages == []


# ---- the Chinese UI is Chinese, and screenshots for a reviewer ---------------------------------

# Each run writes its shots to artifacts/walk/ (ignored); the committed set in
# artifacts/screenshots/ is refreshed on purpose with CASHCODE_SCREENSHOTS_DIR=artifacts/screenshots
# (a run would otherwise rewrite it: the shots hold temp paths and times).
SCREENSHOTS = ROOT / os.environ.get("CASHCODE_SCREENSHOTS_DIR", "artifacts/walk")
# Words that stay as they are in a Chinese UI: product, protocol and format names.
ALLOWED = re.compile(
    r"\b(?:CashCode|cashcode|MCP|Ollama|OpenAI|Anthropic|API|URL|JSON|JSONL|HTTP|HTTPS|SSE|stdio|ZIP|zip|"
    r"PDF|Markdown|SKILL\.md|MEMORY\.md|SOUL\.md|Token|token|Bearer|Chat Completions|Responses|"
    r"Qt|Linux|macOS|Windows|Ctrl|Shift|Enter|Esc|Alt|Cmd|Tab|UTC|GitHub|Claude|ChatGPT|CPU|"
    r"serve\.json|serve|Python|Node|npx|uvx|npm|PyPI|Git|English|Dream|fake-\w+|gpt-[\w.-]+|ms|KB|MB|GB)\b"
)
# Code, paths, URLs, ids and the like: not words of the UI.
NOT_WORDS = re.compile(
    r"(?:https?://\S+|\b\w+(?:-\w+)+\b|[\w.-]*[/\\][\w./\\-]*|\S*[_=:@#]\S*|\b\w*\d\w*\b|\S+\.\w{1,5}\b)"
)
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")

# Visible text of the page, except what the user or the model wrote, names the user gave
# (providers, servers: marked data-i18n-skip) and code.
VISIBLE_TEXT_JS = """() => {
  const skip = "code, pre, kbd, samp, textarea, input, option, script, style, .markdown-body, "
    + "[data-testid='message-user'] .user-text, .message-text, [data-i18n-skip], .chat-title, .chat-heading, "
    + ".model-badge, .provider-url, .tool-name, .tool-summary";
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    const el = node.parentElement;
    if (!text || !el || el.closest(skip)) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("[placeholder], [aria-label], [title]")) {
    if (el.closest(skip.replace("textarea, input, ", "")) || !el.checkVisibility()) continue;
    for (const a of ["placeholder", "aria-label", "title"]) {
      if (el.getAttribute(a)) out.push(el.getAttribute(a));
    }
  }
  return out;
}"""


def english_only(texts: list[str]) -> list[str]:
    found = []
    for text in texts:
        if CJK.search(text):
            continue
        rest = NOT_WORDS.sub(" ", ALLOWED.sub(" ", text))
        if re.search(r"[A-Za-z]{3,}", rest):
            found.append(text)
    return sorted(set(found))


def shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(150)  # let a transition finish so the picture is steady
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def _set_look(page: Page, language: str, theme: str) -> None:
    open_view(page, "settings")
    page.get_by_test_id("language-select").select_option(language)
    page.get_by_test_id("theme-select").select_option(theme)
    expect(page.locator("html")).to_have_attribute("lang", language)


MAIN_VIEWS = ("inbox", "agents", "mcp", "skills", "usage", "evals")
MEMORY_TABS = ("doc", "memories", "soul", "notes")
SETTINGS_SECTIONS = (
    "general", "providers", "workspace", "tools", "websearch", "approvals", "import", "local-api",
    "prices", "about",
)  # fmt: skip


def _chinese(page: Page, test_id: str) -> None:
    """In zh-CN, a backend error shown at `test_id` is worded in Chinese, not the English text."""
    expect(page.get_by_test_id(test_id)).to_have_text(CJK)


@pytest.mark.parametrize(("language", "theme"), [("en", "light"), ("zh-CN", "dark")])
def test_the_main_views_in_each_language_with_screenshots(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    language: str,
    theme: str,
) -> None:
    page, problems, _ = browser_page
    page.set_viewport_size({"width": 1280, "height": 800})
    open_ui(page, served_ui)
    look = f"{language}-{theme}"
    seen: dict[str, list[str]] = {}
    poor: dict[str, list[dict[str, Any]]] = {}

    def look_at(name: str) -> None:
        """Shoot the view, keep its visible text, and scan its small text's contrast."""
        shoot(page, f"{name}-{look}")
        seen[name] = page.evaluate(VISIBLE_TEXT_JS)
        if found := low_contrast(page):
            poor[name] = found

    _set_look(page, language, theme)
    page.evaluate("location.hash = '#/welcome'")  # the start address works only once
    expect(page.get_by_test_id("onboarding")).to_be_visible()
    look_at("welcome")
    add_provider(page, fresh_llm.openai_base_url)
    expect(page.get_by_test_id("provider-test-result")).to_be_visible()
    look_at("settings")

    # A chat with a tool call that asks first: the approval, then the denied card.
    page.get_by_test_id("nav-chat").click()
    page.get_by_test_id("new-chat").click()
    # Type only once the new chat is open: text typed while it is being created is lost with the
    # composer it was typed in (seen under load).
    page.wait_for_url(re.compile(r".*#/chat/[0-9a-f-]+$"))
    fresh_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hi"}}]},
        {"text": "好的，我没有写入文件。\n\n```python\nprint(1)\n```"},
    )
    send(page, "写一个笔记")
    expect(page.get_by_test_id("approval-dialog")).to_be_visible()
    if language == "zh-CN":  # what the call will do, worded from the event's summary code
        _chinese(page, "approval-summary")
    look_at("approval")
    page.get_by_test_id("approval-deny").click()
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    expect(page.get_by_test_id("tool-card")).to_have_attribute("data-state", "denied")
    look_at("chat")

    # A real failing route: an image for a model that cannot see images (the send is refused).
    image = [["dot.png", "image/png", _b64(png(3, 3))]]
    page.evaluate(DRAG_JS, ['[data-testid="composer-input"]', image, True])
    expect(page.get_by_test_id("attachment-chip")).to_have_attribute("data-status", "ready")
    page.get_by_test_id("composer-input").fill("看这张图")
    page.get_by_test_id("send-button").click()
    expect(page.get_by_test_id("error-banner")).to_have_attribute("data-code", "invalid")
    if language == "zh-CN":
        _chinese(page, "error-text")
    look_at("error")

    for view in MAIN_VIEWS:
        open_view(page, view)
        page.wait_for_timeout(300)  # lists load
        look_at(view)

    open_view(page, "memory")
    for tab in MEMORY_TABS:
        page.get_by_test_id(f"memory-tab-{tab}").click()
        page.wait_for_timeout(300)
        look_at(f"memory-{tab}")

    # Knowledge: a base, then the same name again (a conflict from the route).
    open_view(page, "knowledge")
    for _ in range(2):
        page.get_by_test_id("kb-new-name").fill("文档")
        page.get_by_test_id("kb-create").click()
        expect(page.get_by_test_id("kb-empty")).to_have_count(0)
    expect(page.get_by_test_id("knowledge-error")).to_be_visible()
    if language == "zh-CN":
        _chinese(page, "knowledge-error")
    look_at("knowledge")

    # Tasks: the new-task form with a cron expression the backend refuses.
    open_view(page, "tasks")
    page.get_by_test_id("tasks-new").click()
    page.get_by_test_id("tasks-kind").select_option("cron")
    page.get_by_test_id("tasks-cron").fill("nope")
    expect(page.get_by_test_id("tasks-preview")).to_contain_text("nope")
    if language == "zh-CN":
        _chinese(page, "tasks-preview")
    look_at("tasks")

    open_view(page, "settings")
    for section in SETTINGS_SECTIONS:
        page.locator(f'.settings-nav a[data-section="{section}"]').click()
        page.wait_for_timeout(200)
        look_at(f"settings-{section}")

    if language == "zh-CN":
        english = {view: found for view, texts in seen.items() if (found := english_only(texts))}
        assert not english, "English-only text in the Chinese UI:\n" + json.dumps(english, indent=1)
    assert not poor, f"Text under 18 px below 4.5:1 in {theme}:\n" + contrast_report(poor)
    assert problems.messages == []
