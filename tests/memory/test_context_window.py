"""Without a summary (consolidation has not run or keeps failing), a turn reads only the newest
messages within twice the threshold (issue 22 item 9): then the model is told that older
context was left out, and its window never starts in the middle of a turn (no leading
assistant message, tool call or tool result). Real SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.memory.summaries import LEFT_OUT_NOTE, ConsolidatedStore, SummaryRepository
from app.store.chats import ChatRepository
from app.store.db import Database
from tests.memory.test_consolidation_reads import _chat


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(tmp_path / "cashcode.sqlite3")
    yield database
    database.close()


def _store(db: Database, chats: ChatRepository, threshold: int) -> ConsolidatedStore:
    return ConsolidatedStore(chats, chats, SummaryRepository(db), lambda: threshold)


@pytest.mark.parametrize("threshold", range(300, 1_400, 37))  # cuts land on every kind of message
def test_a_cut_window_says_so_and_starts_with_a_user_message(db: Database, threshold: int) -> None:
    chats, chat = _chat(db, 60)  # user / assistant turns with tool calls and long results
    history = _store(db, chats, threshold).history(chat)
    assert history[0].role == "system" and history[0].content == LEFT_OUT_NOTE
    assert len(history) > 1 and history[1].role == "user", [m.role for m in history[:3]]
    whole = [s.message for s in chats.path_messages(chat)]
    assert history[1:] == whole[len(whole) - len(history) + 1 :]  # the newest, in order


def test_a_window_that_holds_the_whole_chat_has_no_note(db: Database) -> None:
    chats, chat = _chat(db, 10)
    history = _store(db, chats, 100_000).history(chat)
    assert [m.content for m in history] == [s.message.content for s in chats.path_messages(chat)]
    assert all(m.content != LEFT_OUT_NOTE for m in history)


def test_the_user_is_told_when_older_context_was_left_out(db: Database) -> None:
    """The capability publishes `context_left_out` for the chat (the UI shows a notice)."""
    told: list[str] = []
    chats, chat = _chat(db, 60)
    store = ConsolidatedStore(chats, chats, SummaryRepository(db), lambda: 300, on_cut=told.append)
    store.history(chat)
    assert told == [chat]
    whole = ConsolidatedStore(chats, chats, SummaryRepository(db), lambda: 100_000, on_cut=told.append)
    whole.history(chat)
    assert told == [chat]  # a window holding the whole chat tells nobody


def test_the_memory_capability_publishes_the_event(db: Database, tmp_path: Path) -> None:
    from app.contracts.events import Event
    from app.memory.capability import MemoryCapability
    from app.memory.events import ContextLeftOut
    from app.settings.user_settings import SettingsStore

    published: list[Event] = []
    chats, chat = _chat(db, 60)
    settings = SettingsStore(tmp_path / "settings.json")
    capability = MemoryCapability(
        db, chats, tmp_path, settings, lambda _pid: None, {}, publish=published.append  # type: ignore[arg-type,return-value]
    )
    settings.update(lambda s: s.model_copy(update={"memory_consolidation_chars": 1000}))
    capability.wrap_store(chats).history(chat)
    assert published == [ContextLeftOut(chat_id=chat)]
