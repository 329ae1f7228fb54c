"""The Knowledge view in real Chromium against `cashcode serve`: create a base, add a folder
by path, see its status, search with citations, rename, re-index, look at skipped files, remove
the folder and delete the base."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import EventFrames, PageProblems
from tests.server.process import ServeProcess

pytestmark = pytest.mark.browser


def test_knowledge_view_main_flow(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\n## Install\n\nRun the installer quietly.\n", encoding="utf-8")
    (docs / "notes.txt").write_text("知识库可以离线搜索。\n", encoding="utf-8")
    (docs / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0")

    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-knowledge").click()
    expect(page.get_by_test_id("knowledge-view")).to_be_visible()
    expect(page.get_by_test_id("kb-empty")).to_be_visible()

    page.get_by_test_id("kb-new-name").fill("Notes")
    page.get_by_test_id("kb-new-name").press("Enter")
    card = page.get_by_test_id("kb-Notes")
    expect(card).to_be_visible()
    card.get_by_test_id("kb-path").fill(str(docs))
    card.get_by_test_id("kb-add-folder").click()
    expect(card.get_by_test_id("kb-status")).to_contain_text("2 files")
    expect(card.get_by_test_id("kb-status")).to_contain_text("1 skipped")
    expect(card.get_by_test_id("kb-root")).to_have_text(str(docs))
    card.get_by_role("button", name="Show skipped files (1)").click()
    expect(card.get_by_test_id("kb-skipped")).to_contain_text("binary file")

    page.get_by_test_id("kb-query").fill("installer")
    page.get_by_test_id("kb-query").press("Enter")
    expect(page.get_by_test_id("kb-citation")).to_have_text([f"{docs}/guide.md:3-5"])
    expect(page.get_by_test_id("kb-hits")).to_contain_text("Notes › Guide > Install")
    page.get_by_test_id("kb-query").fill("离线搜索")
    page.get_by_test_id("kb-search-go").click()
    expect(page.get_by_test_id("kb-citation")).to_have_text([f"{docs}/notes.txt:1-1"])

    card.get_by_test_id("kb-rename").click()
    card.get_by_test_id("kb-rename-input").fill("Docs")
    card.get_by_test_id("kb-rename-input").press("Enter")
    card = page.get_by_test_id("kb-Docs")
    expect(card).to_be_visible()
    card.get_by_test_id("kb-reindex").click()
    expect(card.get_by_test_id("kb-status")).to_contain_text("2 files")

    card.get_by_test_id("kb-remove-root").click()
    expect(card.get_by_test_id("kb-status")).to_contain_text("0 files")
    card.get_by_test_id("kb-delete").click()
    page.get_by_test_id("confirm-ok").click()
    expect(page.get_by_test_id("kb-empty")).to_be_visible()
    assert problems.messages == []


def test_embeddings_are_turned_on_from_the_view(
    seeded_env: dict[str, str],
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(3):
        (docs / f"n{n}.md").write_text(f"# Note {n}\n\napple banana {n}\n", encoding="utf-8")
    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    expect(page.get_by_test_id("app-root")).to_be_visible()
    page.get_by_test_id("nav-knowledge").click()
    page.get_by_test_id("kb-new-name").fill("Fruit")
    page.get_by_test_id("kb-create").click()
    card = page.get_by_test_id("kb-Fruit")
    card.get_by_test_id("kb-path").fill(str(docs))
    card.get_by_test_id("kb-add-folder").click()
    expect(card.get_by_test_id("kb-status")).to_contain_text("3 files")
    expect(page.get_by_test_id("kb-embeddings-state")).to_contain_text("Off")

    page.get_by_test_id("kb-emb-provider").select_option(index=1)  # the seeded provider
    page.get_by_test_id("kb-emb-model").fill("fake-embed")
    page.get_by_test_id("kb-emb-save").click()
    expect(page.get_by_test_id("kb-embeddings-state")).to_have_text("On: fake-embed")
    expect(card.get_by_test_id("kb-embedded")).to_have_text("Embedded: 3 of 3 chunks")
    page.get_by_test_id("kb-emb-off").click()
    expect(page.get_by_test_id("kb-embeddings-state")).to_contain_text("Off")
    assert problems.messages == []
