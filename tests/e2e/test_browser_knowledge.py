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


def test_a_folder_is_added_in_one_step_and_choose_folder_explains_typing_in_the_browser(
    served_ui: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
    tmp_path: Path,
) -> None:
    """Issue 41: "Add a folder" makes the base (named after the folder) and indexes it in one
    step; a second folder can go into that base; in the browser "Choose folder…" says to type."""
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (recipes / "soup.md").write_text("# Soup\n\nSimmer the leeks slowly.\n", encoding="utf-8")
    more = tmp_path / "more"
    more.mkdir()
    (more / "bread.md").write_text("# Bread\n\nProve the dough overnight.\n", encoding="utf-8")

    page, problems, _ = browser_page
    page.goto(served_ui.start_url)
    page.get_by_test_id("nav-knowledge").click()
    expect(page.get_by_test_id("kb-empty")).to_be_visible()
    expect(page.get_by_test_id("kb-add-into")).to_have_count(0)  # no base yet: nothing to choose

    page.get_by_test_id("kb-add-pick").click()
    expect(page.get_by_test_id("kb-add-type-hint")).to_contain_text("type the folder's full path")
    expect(page.get_by_test_id("kb-add-path")).to_be_focused()
    page.keyboard.type(str(recipes))
    page.get_by_test_id("kb-add-submit").click()
    card = page.get_by_test_id("kb-recipes")
    expect(card.get_by_test_id("kb-status")).to_contain_text("1 file")
    expect(card.get_by_test_id("kb-root")).to_have_text(str(recipes))
    expect(page.get_by_test_id("kb-add-path")).to_have_value("")

    page.get_by_test_id("kb-add-path").fill(str(more))
    page.get_by_test_id("kb-add-into").select_option("recipes")
    page.get_by_test_id("kb-add-submit").click()
    expect(card.get_by_test_id("kb-root")).to_have_count(2)
    expect(card.get_by_test_id("kb-status")).to_contain_text("2 files")
    expect(page.locator("[data-testid^='kb-'][data-testid$='more']")).to_have_count(0)

    page.get_by_test_id("kb-add-path").fill(str(tmp_path / "missing"))
    page.get_by_test_id("kb-add-submit").click()
    expect(page.get_by_test_id("kb-add-error")).to_be_visible()
    assert problems.messages == []
