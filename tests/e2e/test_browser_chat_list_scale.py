"""The sidebar's chat list with 2,000 stored chats, in real Chromium against `cashcode serve`:
paged and virtualised, so scrolling to the end shows the oldest chat while the DOM holds only
the rows in view."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.api.plugins import open_database
from app.contracts.messages import Message
from app.settings.paths import AppPaths
from app.store.chats import ChatRepository
from tests.e2e.browser_helpers import (
    ROOT,
    EventFrames,
    PageProblems,
    require_built_ui,
)
from tests.e2e.test_browser_chat import open_ui
from tests.server.process import ServeProcess, free_port, serve_process

pytestmark = pytest.mark.browser

CHATS = 2000
MAX_ROWS_IN_DOM = 100  # the list shows ~20 rows at this window size, plus a few either side


def _seed(env: dict[str, str]) -> None:
    paths = AppPaths.from_env(env)
    with open_database(paths.db_path) as db:
        chats = ChatRepository(db)
        with db.transaction():  # append_turn joins it: one commit for the whole profile
            for i in range(CHATS):
                chat = chats.create(f"Seeded chat {i:04d}")  # created oldest first
                if i % 10 == 0:
                    chats.append_turn(chat.id, "t1", [Message(role="user", content=f"hello {i}")])


@pytest.fixture
def served_profile(seeded_env: dict[str, str], workspace: Path) -> Iterator[ServeProcess]:
    require_built_ui()
    _seed(seeded_env)
    env = {**os.environ, **seeded_env, "WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}
    with serve_process(["--no-open", "--port", str(free_port())], env, cwd=ROOT) as served:
        yield served


def _rows_in_dom(page: Page) -> int:
    return int(page.evaluate("document.querySelectorAll('[data-testid=chat-list-item]').length"))


def test_scrolling_the_2000_chat_list_to_the_end_shows_the_oldest_chat_with_few_rows_in_the_dom(
    served_profile: ServeProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, problems, _ = browser_page
    open_ui(page, served_profile)
    page.get_by_test_id("nav-chat").click()
    items = page.get_by_test_id("chat-list-item")
    expect(items.first).to_contain_text("Seeded chat 1999")  # newest first
    assert 0 < _rows_in_dom(page) < MAX_ROWS_IN_DOM

    oldest = items.filter(has_text="Seeded chat 0000")
    # A scroll can end before its page arrived (the list grew by its spacer only), so allow
    # several scrolls per page; the bound only stops a list that never reaches its end.
    for _ in range(CHATS // 100 * 4):
        if oldest.count():
            break
        height = page.evaluate("document.querySelector('[data-testid=chat-list]').scrollHeight")
        page.evaluate(
            "(() => { const l = document.querySelector('[data-testid=chat-list]');"
            " l.scrollTop = l.scrollHeight; })()"
        )
        # Either the next page arrived (the list grew) or the end is rendered.
        page.wait_for_function(
            "h => document.querySelector('[data-testid=chat-list]').scrollHeight > h"
            " || [...document.querySelectorAll('[data-testid=chat-list-item]')]"
            ".some((e) => e.textContent.includes('Seeded chat 0000'))",
            arg=height,
        )
    expect(oldest).to_be_visible()
    assert _rows_in_dom(page) < MAX_ROWS_IN_DOM
    expect(items.last).to_contain_text("Seeded chat 0000")

    # Keyboard: Home goes back to the newest chat, rendering it again.
    oldest.locator(".chat-open").focus()
    page.keyboard.press("Home")
    expect(page.locator(":focus")).to_contain_text("Seeded chat 1999")
    page.keyboard.press("ArrowDown")
    expect(page.locator(":focus")).to_contain_text("Seeded chat 1998")
    assert problems.messages == []
