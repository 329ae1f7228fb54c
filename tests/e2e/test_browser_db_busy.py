"""Another program holds CashCode's database (issue 24 item 2), in real Chromium against
`cashcode serve`: the page says the database is busy, Stop answers at once, the chat list still
answers, and once the other program lets go everything works again with nothing lost."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser_helpers import ROOT, EventFrames, PageProblems, require_built_ui
from tests.e2e.conftest import FakeLLMProcess
from tests.e2e.test_browser_chat import last, open_ui, send
from tests.server.process import ServeProcess, free_port, serve_process

pytestmark = pytest.mark.browser

HANG_S = 5.0  # a hang bound for Stop (it answers in well under a second), not a benchmark

HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN EXCLUSIVE")
print("LOCKED", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


@pytest.fixture
def served(seeded_env: dict[str, str], workspace: Path) -> Iterator[ServeProcess]:
    require_built_ui()
    env = {**os.environ, **seeded_env, "WORKSPACE_DIR": str(workspace), "PYTHONUNBUFFERED": "1"}
    with serve_process(["--no-open", "--port", str(free_port())], env, cwd=ROOT) as process:
        yield process


def _hold(db: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "LOCKED"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    if holder.poll() is None:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
    holder.wait(timeout=30)
    for pipe in (holder.stdin, holder.stdout):
        if pipe is not None:
            pipe.close()


def test_a_locked_database_shows_busy_stop_answers_and_nothing_is_lost(
    served: ServeProcess,
    seeded_env: dict[str, str],
    fresh_llm: FakeLLMProcess,
    browser_page: tuple[Page, PageProblems, EventFrames],
) -> None:
    page, _, _ = browser_page
    db = Path(seeded_env["CASHCODE_DATA_DIR"]) / "cashcode.sqlite3"
    open_ui(page, served)
    busy = page.get_by_test_id("database-busy")
    fresh_llm.script({"text": "Kept answer.", "chunk_size": 4})
    send(page, "Remember this")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    expect(busy).to_have_count(0)

    fresh_llm.script({"text": "slow " * 400, "chunk_size": 1, "delay_s": 0.05})
    send(page, "Tell me a long story")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "streaming")
    # Some of the answer has arrived: a Stop before the first token returns the message to the
    # composer instead (nothing answered, nothing to keep).
    expect(last(page, "message-assistant")).to_contain_text("slow")
    holder = _hold(db)
    try:
        started = time.monotonic()
        page.get_by_test_id("stop-button").click()
        expect(last(page, "message-assistant")).to_have_attribute("data-state", "cancelled")
        assert time.monotonic() - started < HANG_S, "Stop waited for the database"
        # The stopped answer could not be stored: the page says why.
        expect(busy).to_be_visible()
        expect(busy).to_contain_text("The database is busy")

        # Reads still answer: a fresh page lists the chat and shows its stored exchange, and
        # knows at once that the database is busy.
        page.reload()
        expect(page.get_by_test_id("app-root")).to_have_attribute("data-status", "ready")
        expect(busy).to_be_visible()
        expect(page.get_by_test_id("chat-list-item").filter(has_text="Remember this")).to_have_count(1)
        expect(page.get_by_test_id("message-assistant").first).to_contain_text("Kept answer.")
    finally:
        _release(holder)

    # The backend finds the database free again: the notice goes, and work goes on.
    expect(busy).to_have_count(0)
    fresh_llm.script({"text": "After the lock.", "chunk_size": 4})
    send(page, "Still there?")
    expect(last(page, "message-assistant")).to_have_attribute("data-state", "done")
    page.reload()
    expect(page.get_by_test_id("app-root")).to_have_attribute("data-status", "ready")
    users = page.get_by_test_id("message-user")
    expect(users.first).to_contain_text("Remember this")
    expect(users.last).to_contain_text("Still there?")
    answers = page.get_by_test_id("message-assistant")
    expect(answers.first).to_contain_text("Kept answer.")
    expect(answers.last).to_contain_text("After the lock.")
