"""Issue 26: an answer's knowledge-base citation is a link the UI opens. Real Chromium against
`cashcode serve`, the scripted fake LLM over HTTP: the model searches with `knowledge_search`,
answers citing `notes/a.md:3-5`; the citation is a link, and clicking it shows lines 3–5 of
that file in the viewer panel. A path outside the knowledge base stays plain text. The search
results of the Knowledge view open the same viewer."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view
from tests.e2e.conftest import FakeLLMProcess
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

NOTE = (
    "# Pantry\n\n## Jam\n\nQuince jam keeps for a year.\nStore it somewhere dark.\n\n"
    "## Tea\n\nGreen tea goes stale.\n"
)


def test_a_cited_passage_opens_in_the_viewer_at_its_lines(
    seeded_env: dict[str, str],
    fresh_llm: FakeLLMProcess,
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    tmp_path: Path,
) -> None:
    kb = (tmp_path / "kb").resolve()
    (kb / "notes").mkdir(parents=True)
    (kb / "notes" / "a.md").write_text(NOTE, encoding="utf-8")
    (tmp_path / "secret.md").write_text("not in any base\n", encoding="utf-8")

    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    open_view(page, "knowledge")
    page.get_by_test_id("kb-new-name").fill("Pantry")
    page.get_by_test_id("kb-new-name").press("Enter")
    card = page.get_by_test_id("kb-Pantry")
    card.get_by_test_id("kb-path").fill(str(kb))
    card.get_by_test_id("kb-add-folder").click()
    expect(card.get_by_test_id("kb-status")).to_contain_text("1 file")

    fresh_llm.script(
        {"tool_calls": [{"name": "knowledge_search", "arguments": {"query": "quince jam"}}]},
        {"text": f"Quince jam keeps for a year (`notes/a.md:3-5`); see also {tmp_path}/secret.md:1-1."},
    )
    page.get_by_test_id("new-chat").click()
    page.get_by_test_id("composer-input").fill("How long does quince jam keep?")
    page.get_by_test_id("send-button").click()
    answer = page.get_by_test_id("message-assistant").last
    expect(answer).to_have_attribute("data-state", "done")
    # The chunk with its citation reached the model (the tool result of the second request).
    tool_msgs = [m for m in fresh_llm.requests()[-1]["body"]["messages"] if m["role"] == "tool"]
    assert f"{kb}/notes/a.md:3-6" in tool_msgs[0]["content"]

    link = answer.locator("a.kb-cite")
    expect(link).to_have_count(1)  # the outside path is not a knowledge file: plain text
    expect(link).to_have_text("notes/a.md:3-5")
    expect(answer).to_contain_text(f"{tmp_path}/secret.md:1-1")
    link.click()
    viewer = page.get_by_test_id("kb-viewer")
    expect(viewer).to_be_visible()
    expect(viewer.get_by_test_id("kb-viewer-path")).to_have_text(f"{kb}/notes/a.md")
    expect(viewer.get_by_test_id("kb-viewer-range")).to_contain_text("Pantry · lines 3–5 of 10")
    cited = viewer.locator(".kb-viewer-line.cited")
    expect(cited).to_have_count(3)
    expect(cited).to_have_text(["3## Jam", "4", "5Quince jam keeps for a year."])
    expect(viewer.get_by_test_id("kb-viewer-open-folder")).to_have_count(0)  # the browser cannot open it
    viewer.get_by_test_id("kb-viewer-close").click()
    expect(viewer).to_have_count(0)

    # Issue 41: a "Sources" list under the answer names the cited knowledge file (not the
    # outside one) and opens the same lines.
    sources = answer.get_by_test_id("cited-source")
    expect(sources).to_have_count(1)
    expect(sources).to_contain_text("a.md")
    expect(sources).to_contain_text("Pantry")
    sources.get_by_test_id("cited-range").click()
    expect(viewer.get_by_test_id("kb-viewer-range")).to_contain_text("Pantry · lines 3–5 of 10")
    viewer.get_by_test_id("kb-viewer-close").click()

    # The Knowledge view's search results open the same viewer.
    open_view(page, "knowledge")
    page.get_by_test_id("kb-query").fill("green tea")
    page.get_by_test_id("kb-query").press("Enter")
    page.get_by_test_id("kb-citation-link").first.click()
    expect(viewer.get_by_test_id("kb-viewer-range")).to_contain_text("lines 8–10 of 10")
    expect(viewer.locator(".kb-viewer-line.cited").last).to_have_text("10Green tea goes stale.")
    assert problems.messages == []
