"""Issue 27 acceptance over `cashcode serve` in real Chromium: math (KaTeX), a Mermaid
flowchart, both kinds of error, and HTML/SVG artifacts that run in a sandbox with no way out."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.rich_answer import ARTIFACT_REPORT, BAD_FORMULA, BROKEN_MERMAID, recording_server, rich_answer
from tests.e2e.test_browser_chat import add_provider, last, open_ui, send
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

# Select the answer's first paragraph and fire a real copy event at it; return what it put on
# the clipboard as plain text.
COPY_FIRST_PARAGRAPH = """() => {
  const answer = [...document.querySelectorAll('[data-testid=message-assistant]')].at(-1);
  const p = answer.querySelector('.markdown p');
  const range = document.createRange();
  range.selectNodeContents(p);
  const selection = getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  const data = new DataTransfer();
  p.dispatchEvent(new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true }));
  selection.removeAllRanges();
  return data.getData('text/plain');
}"""
PAGE_STATE = "() => [document.title, localStorage.length, document.body.dataset.pwned ?? null]"


def test_math_diagrams_and_sandboxed_artifacts_in_the_browser(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    fresh_llm: FakeLLMProcess,
    tmp_path: Path,
) -> None:
    page, _, _ = browser_page
    scripts: list[str] = []

    def on_request(request: Request) -> None:
        if request.resource_type == "script":
            scripts.append(request.url)

    page.on("request", on_request)
    with recording_server() as leaks:
        open_ui(page, served_ui)
        add_provider(page, fresh_llm.openai_base_url)
        page.get_by_test_id("nav-chat").click()
        page.get_by_test_id("new-chat").click()
        fresh_llm.script({"text": rich_answer(leaks.url)})
        send(page, "Show me everything")
        answer = last(page, "message-assistant")
        expect(answer).to_have_attribute("data-state", "done")

        # Math: KaTeX markup for the two inline and the display formula; the bad one its source.
        expect(answer.locator(".math-inline .katex")).to_have_count(2)
        expect(answer.locator(".math-display .katex")).to_have_count(1)
        bad = answer.locator(".math-error")
        expect(bad).to_have_count(1)
        expect(bad.locator(".math-source")).to_have_text(f"${BAD_FORMULA}$")
        expect(bad.locator(".math-error-message")).to_contain_text("KaTeX")

        # Diagrams: the flowchart is an SVG; the broken block shows its error and its source.
        diagrams = answer.locator(".diagram-block")
        expect(diagrams).to_have_count(2)
        expect(diagrams.nth(0)).to_have_attribute("data-state", "rendered")
        expect(diagrams.nth(0).locator(".diagram-view svg")).to_have_count(1)
        expect(diagrams.nth(0).locator(".diagram-view svg")).to_contain_text("Answer")
        expect(diagrams.nth(1)).to_have_attribute("data-state", "error")
        # Flowcharts use Mermaid's dagre layout: its ELK chunk (1.5 MB) is never fetched.
        assert any("/mermaid.core-" in url for url in scripts), scripts
        assert not [url for url in scripts if "/elk-" in url]
        expect(diagrams.nth(1).locator(".diagram-error")).to_be_visible()
        expect(diagrams.nth(1).locator(".diagram-source")).to_contain_text(
            BROKEN_MERMAID.splitlines()[1].strip()
        )
        # The toggle shows the flowchart's source instead of the drawing.
        diagrams.nth(0).locator(".diagram-toggle").click()
        expect(diagrams.nth(0).locator(".diagram-source")).to_be_visible()
        expect(diagrams.nth(0).locator(".diagram-view")).to_be_hidden()

        # Export of the drawing: SVG and PNG files.
        diagrams.nth(0).locator(".diagram-toggle").click()  # back to the drawing
        with page.expect_download() as svg_info:
            diagrams.nth(0).locator(".diagram-svg").click()
        svg_path = tmp_path / "diagram.svg"
        svg_info.value.save_as(svg_path)
        assert svg_path.read_text(encoding="utf-8").startswith("<svg")
        with page.expect_download() as png_info:
            diagrams.nth(0).locator(".diagram-png").click()
        png_path = tmp_path / "diagram.png"
        png_info.value.save_as(png_path)
        assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

        # Copying a selection across formulas gives their TeX source.
        copied = page.evaluate(COPY_FIRST_PARAGRAPH)
        assert copied.startswith("Inline math: $a^2 + b^2 = c^2$ and $e^{i\\pi} + 1 = 0$"), copied

        # Artifacts: Preview runs the HTML in a sandboxed frame of its own origin.
        before = page.evaluate(PAGE_STATE)
        artifacts = answer.locator(".artifact-block")
        expect(artifacts).to_have_count(2)
        artifacts.nth(0).locator(".artifact-preview").click()
        frame_el = artifacts.nth(0).locator("iframe.artifact-frame")
        expect(frame_el).to_have_attribute("sandbox", "allow-scripts")
        assert "allow-same-origin" not in (frame_el.get_attribute("sandbox") or "")
        frame = artifacts.nth(0).frame_locator("iframe.artifact-frame")
        expect(frame.locator("#marker")).to_have_text("ARTIFACT-RAN")
        expect(frame.locator("#report")).to_have_text(ARTIFACT_REPORT)

        artifacts.nth(1).locator(".artifact-preview").click()
        svg_frame = artifacts.nth(1).locator("iframe.artifact-frame")
        expect(svg_frame).to_have_attribute("sandbox", "allow-scripts")
        expect(artifacts.nth(1).frame_locator("iframe.artifact-frame").locator("svg rect")).to_have_count(1)

        # The side panel shows the artifact larger, in the same sandbox.
        artifacts.nth(0).locator(".artifact-open").click()
        panel = page.get_by_test_id("artifact-panel")
        expect(panel.locator("iframe")).to_have_attribute("sandbox", "allow-scripts")
        expect(panel.frame_locator("iframe").locator("#marker")).to_have_text("ARTIFACT-RAN")
        # It splits the view: the composer's Send stays visible and clickable beside it.
        send_box = page.get_by_test_id("send-button").bounding_box()
        panel_box = panel.bounding_box()
        assert send_box is not None and panel_box is not None
        assert send_box["x"] + send_box["width"] <= panel_box["x"], (send_box, panel_box)
        on_top = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid=send-button]') !== null",
            [send_box["x"] + send_box["width"] / 2, send_box["y"] + send_box["height"] / 2],
        )
        assert on_top  # nothing covers Send
        panel.get_by_role("button", name="Close").click()
        expect(panel).to_have_count(0)

        # The app's page is unchanged and nothing reached the outside server.
        after = page.evaluate(PAGE_STATE)
        assert after == before
        assert before[2] is None
        assert leaks.paths == []
        expect(page.get_by_test_id("app-root")).to_be_visible()

    # Export: Markdown keeps the sources; HTML is one static page, math and diagrams drawn.
    page.get_by_test_id("export-menu").click()
    with page.expect_download() as md_info:
        page.get_by_test_id("export-md").click()
    md_path = tmp_path / "chat.md"
    md_info.value.save_as(md_path)
    markdown = md_path.read_text(encoding="utf-8")
    assert f"${BAD_FORMULA}$" in markdown and "```mermaid" in markdown and "```html" in markdown
    page.get_by_test_id("export-menu").click()
    with page.expect_download() as html_info:
        page.get_by_test_id("export-html").click()
    assert html_info.value.suggested_filename.endswith(".html")
    html_path = tmp_path / "chat.html"
    html_info.value.save_as(html_path)
    exported = html_path.read_text(encoding="utf-8")
    assert 'class="katex"' in exported
    assert "<svg" in exported and "Answer" in exported
    assert "<script" not in exported.lower()
    assert "data:font/woff2;base64," in exported
    # Opened on its own, the file shows the formulas and the flowchart.
    page.goto(html_path.as_uri())
    expect(page.locator(".math-inline .katex")).to_have_count(2)
    expect(page.locator(".diagram-view svg")).to_have_count(1)
