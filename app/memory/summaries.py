"""Consolidation summaries and the history the model sees (SPEC S5.2).

A chat's newest `chat_summaries` row is cumulative (it includes every earlier summary), so the
context of a turn is that summary plus exactly the stored messages from its
`keep_from_cursor` on. The full history stays in `messages`, visible and searchable.
"""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.context import TurnStore
from app.core.messages import Message
from app.store.chats import ChatRepository
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import validate_chat_id
from app.store.timeutil import utc_now_iso

SUMMARY_PREFIX = (
    "Summary of the earlier part of this conversation (older messages were folded into it; "
    "the messages after this one are verbatim):\n\n"
)
MAX_SUMMARY_CHARS = 200_000


@dataclass(frozen=True)
class ChatSummaryRecord:
    id: int
    chat_id: str
    content: str
    keep_from_cursor: int
    created_at: str


class SummaryRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def latest(self, chat_id: str) -> ChatSummaryRecord | None:
        cid = validate_chat_id(chat_id)
        rows = self._db.query(
            "SELECT * FROM chat_summaries WHERE chat_id = ? ORDER BY id DESC LIMIT 1", (cid,)
        )
        return _summary(rows[0]) if rows else None

    def list(self, chat_id: str) -> builtins.list[ChatSummaryRecord]:
        cid = validate_chat_id(chat_id)
        rows = self._db.query("SELECT * FROM chat_summaries WHERE chat_id = ? ORDER BY id", (cid,))
        return [_summary(r) for r in rows]

    def count(self, chat_id: str) -> int:
        cid = validate_chat_id(chat_id)
        return int(self._db.query("SELECT count(*) FROM chat_summaries WHERE chat_id = ?", (cid,))[0][0])

    def add(
        self, chat_id: str, content: str, keep_from_cursor: int, *, expected_previous: int | None = -1
    ) -> ChatSummaryRecord:
        """Store a new summary in one transaction. `expected_previous` (the id of the summary the
        new one was built on, None for none) guards against a concurrent writer; -1 skips it."""
        cid = validate_chat_id(chat_id)
        text = content.strip()
        if not text:
            raise ValueError("a summary must not be empty")
        if len(text) > MAX_SUMMARY_CHARS:
            raise ValueError(f"a summary is limited to {MAX_SUMMARY_CHARS} characters")
        if keep_from_cursor < 1:
            raise ValueError("keep_from_cursor must be at least 1")
        now = utc_now_iso()
        with self._db.transaction() as conn:
            if conn.execute("SELECT 1 FROM chats WHERE id = ?", (cid,)).fetchone() is None:
                raise NotFound(f"chat {cid} not found")
            row = conn.execute(
                "SELECT id, keep_from_cursor FROM chat_summaries WHERE chat_id = ? ORDER BY id DESC LIMIT 1",
                (cid,),
            ).fetchone()
            if expected_previous != -1 and (row["id"] if row else None) != expected_previous:
                raise Conflict(f"chat {cid} was consolidated meanwhile")
            if row is not None and keep_from_cursor < row["keep_from_cursor"]:
                raise ValueError("a new summary cannot keep messages an earlier summary already folded")
            cur = conn.execute(
                "INSERT INTO chat_summaries (chat_id, content, keep_from_cursor, created_at)"
                " VALUES (?,?,?,?)",
                (cid, text, keep_from_cursor, now),
            )
        return ChatSummaryRecord(int(cur.lastrowid or 0), cid, text, keep_from_cursor, now)


def summary_message(summary: ChatSummaryRecord) -> Message:
    return Message(role="system", content=SUMMARY_PREFIX + summary.content)


class ConsolidatedStore:
    """The TurnStore of a turn: history = latest summary + messages from keep_from_cursor."""

    def __init__(self, inner: TurnStore, chats: ChatRepository, summaries: SummaryRepository) -> None:
        self._inner = inner
        self._chats = chats
        self._summaries = summaries

    def history(self, chat_id: str) -> list[Message]:
        summary = self._summaries.latest(chat_id)
        if summary is None:
            return self._inner.history(chat_id)
        tail = self._chats.history(chat_id, from_cursor=summary.keep_from_cursor)
        return [summary_message(summary), *tail]

    def append_turn(self, chat_id: str, turn_id: str, messages: Sequence[Message]) -> object:
        return self._inner.append_turn(chat_id, turn_id, messages)


def _summary(row: sqlite3.Row) -> ChatSummaryRecord:
    return ChatSummaryRecord(
        id=int(row["id"]),
        chat_id=row["chat_id"],
        content=row["content"],
        keep_from_cursor=int(row["keep_from_cursor"]),
        created_at=row["created_at"],
    )
