"""The after-turn consolidation plan reads only what it needs (issue 16): a chat within the
threshold costs the newest messages up to it, a long unsummarised path only its oldest part.
Real SQLite; rows read are counted where the connection turns them into Python rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.plugins import open_database
from app.contracts.messages import Message, Role, ToolCall
from app.contracts.provider import Provider
from app.memory.consolidator import ConsolidationPlan, Consolidator, plan_consolidation
from app.memory.summaries import SummaryRepository
from app.store.chats import ChatRecord, ChatRepository, StoredMessage
from app.store.db import Database
from app.store.ids import new_id


class RowCounter:
    """Counts the rows SQLite hands to Python on one connection (its row factory)."""

    def __init__(self, db: Database) -> None:
        self.rows = 0
        self._db = db

    def __enter__(self) -> RowCounter:
        def factory(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> sqlite3.Row:
            self.rows += 1
            return sqlite3.Row(cursor, row)

        with self._db.reading() as conn:
            conn.row_factory = factory
        return self

    def __exit__(self, *exc: object) -> None:
        with self._db.reading() as conn:
            conn.row_factory = sqlite3.Row


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(tmp_path / "cashcode.sqlite3")
    yield database
    database.close()


def _messages(n: int, size: int = 100) -> list[StoredMessage]:
    """n messages: user / assistant turns, every 7th assistant message calls a tool whose long
    result follows (so slices must keep calls with their results)."""
    out: list[StoredMessage] = []
    cursor = 0
    while len(out) < n:
        cursor += 1
        i = len(out)
        if i % 7 == 1:
            call = ToolCall(id=f"c{cursor}", name="read_file", arguments='{"path": "a.txt"}')
            out.append(_at(cursor, Message(role="assistant", content="", tool_calls=(call,))))
            cursor += 1
            result = Message(role="tool", content="r" * (size * 3), tool_call_id=f"c{cursor - 1}")
            out.append(_at(cursor, result))
            continue
        role: Role = "user" if i % 2 == 0 else "assistant"
        out.append(_at(cursor, Message(role=role, content=f"{cursor} " + "x" * (size + cursor % 13))))
    return out


def _at(cursor: int, message: Message) -> StoredMessage:
    return StoredMessage(cursor=cursor, turn_id=f"t{(cursor + 1) // 2}", message=message,
                         created_at="2026-01-01T00:00:00Z", parent_cursor=cursor - 1)  # fmt: skip


def _chat(db: Database, n: int, size: int = 100) -> tuple[ChatRepository, str]:
    chats = ChatRepository(db)
    record = ChatRecord(new_id(), "long", False, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
    chats.insert_imported(record, _messages(n, size))
    return chats, record.id


def _consolidator(db: Database, chats: ChatRepository, threshold: int, max_fold: int) -> Consolidator:
    def no_provider(_: str) -> Provider:
        raise AssertionError("planning never calls the model")

    return Consolidator(chats, SummaryRepository(db), no_provider, lambda: threshold, max_fold)


def _full_plan(
    chats: ChatRepository, db: Database, chat: str, threshold: int, max_fold: int
) -> ConsolidationPlan | None:
    """The plan from the whole tail (what plan() computed before reading only a part)."""
    previous = SummaryRepository(db).latest(chat)
    tail = chats.path_messages(chat, from_cursor=previous.keep_from_cursor if previous else 0)
    return plan_consolidation(chat, previous, tail, threshold, max_fold)


def _same(a: ConsolidationPlan | None, b: ConsolidationPlan | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.fold, a.keep_from_cursor, a.context_chars, a.partial) == (
        b.fold, b.keep_from_cursor, b.context_chars, b.partial,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("n", "threshold", "max_fold"),
    [(40, 100_000, 200_000), (40, 2_000, 200_000), (300, 5_000, 200_000), (300, 5_000, 3_000),
     (300, 40_000, 1_000), (301, 1, 150), (2, 50, 10)],  # fmt: skip
)
def test_the_plan_is_the_one_from_the_whole_tail(db: Database, n: int, threshold: int, max_fold: int) -> None:
    chats, chat = _chat(db, n)
    plan = _consolidator(db, chats, threshold, max_fold).plan(chat)
    assert _same(plan, _full_plan(chats, db, chat, threshold, max_fold))


def test_the_plan_after_a_summary_and_on_a_branch_is_the_one_from_the_whole_tail(db: Database) -> None:
    chats, chat = _chat(db, 400)
    SummaryRepository(db).add(chat, "S" * 500, 120)
    # A branch from message 300: the active path is 1..300 + the new turn.
    turn = [Message(role="user", content="u" * 900), Message(role="assistant", content="a" * 900)]
    chats.append_turn(chat, "tb", turn, parent=300)
    for threshold, max_fold in [(4_000, 200_000), (4_000, 2_000), (100_000, 200_000)]:
        plan = _consolidator(db, chats, threshold, max_fold).plan(chat)
        assert _same(plan, _full_plan(chats, db, chat, threshold, max_fold))
        assert plan is None or plan.keep_from_cursor > 120


def test_a_summarised_long_chat_reads_only_the_tail_after_a_turn(db: Database) -> None:
    chats, chat = _chat(db, 20_000)
    SummaryRepository(db).add(chat, "summary", 19_960)  # 40 messages after it: ~5,000 chars
    consolidator = _consolidator(db, chats, 50_000, 200_000)
    with RowCounter(db) as counter:
        assert consolidator.plan(chat) is None
    assert counter.rows < 100  # the 40 messages of the tail and a few lookups, not 20,000


def test_a_long_unsummarised_chat_reads_only_the_part_to_fold(db: Database) -> None:
    chats, chat = _chat(db, 20_000)  # ~2.6 M characters, never summarised
    consolidator = _consolidator(db, chats, 50_000, 200_000)
    with RowCounter(db) as counter:
        plan = consolidator.plan(chat)
    assert plan is not None and plan.partial
    assert _same(plan, _full_plan(chats, db, chat, 50_000, 200_000))
    # Newest ~50,000 characters + oldest ~200,000 (in 200-message pages) + a few lookups.
    assert 1_000 < len(plan.fold) < 2_000
    assert counter.rows < 2_500
