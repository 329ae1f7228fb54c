"""A Skill ZIP dropped on the served UI in real Chromium: the page reads the File, uploads it
(`skills.import` with data_base64), shows the preview and the Market lists the Skill; another
kind of file is refused politely."""

from __future__ import annotations

import base64
import io
import zipfile

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems, open_view
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser

SKILL = "---\nname: browser-dropped\ndescription: Arrived in the browser.\n---\n# Dropped\n\nSteps.\n"

DROP_JS = """([name, b64, type]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, { type }));
  const target = document.querySelector("[data-testid='skills-view']") || document.body;
  for (const kind of ["dragenter", "dragover", "drop"]) {
    target.dispatchEvent(new DragEvent(kind, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }
}"""


def _zip() -> str:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("browser-dropped/SKILL.md", SKILL)
        z.writestr("browser-dropped/reference/a.md", "# A\n")
    return base64.b64encode(buf.getvalue()).decode()


def test_a_zip_dropped_on_the_page_uploads_previews_imports_and_shows_in_the_market(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-skills").click()
    expect(page.get_by_test_id("skills-view")).to_be_visible()

    page.evaluate(DROP_JS, ["notes.txt", base64.b64encode(b"hello").decode(), "text/plain"])
    expect(page.get_by_test_id("drop-refused")).to_contain_text("Only Skill .zip files")

    page.evaluate(DROP_JS, ["browser-dropped.zip", _zip(), "application/zip"])
    preview = page.get_by_test_id("skill-preview")
    expect(preview).to_be_visible()
    expect(page.get_by_test_id("skill-preview-name")).to_contain_text("browser-dropped")
    expect(preview).to_contain_text("reference/a.md")
    page.get_by_test_id("skill-preview-import").click()
    expect(page.get_by_test_id("skill-preview-done")).to_contain_text("browser-dropped")
    page.get_by_test_id("skill-preview-cancel").click()
    expect(page.locator('[data-skill="browser-dropped"]')).to_be_visible()
    expect(page.locator('[data-skill="browser-dropped"] [data-testid="skill-source"]')).to_have_text("User")
    assert problems.messages == []


def _oversized_zip() -> str:
    """A 6 MiB member (zeros, so the upload is small): past the Skill limit of 5 MiB."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("big/SKILL.md", SKILL.replace("browser-dropped", "big"))
        z.writestr("big/blob.bin", b"\0" * (6 * 1024 * 1024))
    return base64.b64encode(buf.getvalue()).decode()


def _language(page: Page, language: str) -> None:
    open_view(page, "settings")
    page.get_by_test_id("language-select").select_option(language)
    expect(page.locator("html")).to_have_attribute("lang", language)


def test_an_oversized_zip_is_refused_in_chinese_with_its_numbers(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    """Issue 41: a ZIP rule's refusal is worded in the UI language, its member and limit filled in
    (it was the backend's English inside the Chinese UI)."""
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    _language(page, "zh-CN")
    try:
        open_view(page, "skills")
        page.evaluate(DROP_JS, ["big.zip", _oversized_zip(), "application/zip"])
        expect(page.get_by_test_id("skill-preview-error")).to_have_text("“big/blob.bin”大于 5 MiB。")
        page.get_by_test_id("skill-preview-cancel").click()
    finally:
        _language(page, "en")  # the server is shared by the session's browser tests
    assert problems.messages == []
