"""Consolidation summaries and the history the model sees (SPEC S5.2).

A chat's newest `chat_summaries` row is cumulative (it includes every earlier summary), so the
context of a turn is that summary plus exactly the stored messages from its
`keep_from_cursor` on. The full history stays in `messages`, visible and searchable.

Chats are trees (app/store/branches.py): a summary belongs to the path it folded, so the one in
use is the newest whose `keep_from_cursor` message is on the path of the turn — a branch that
forks before that message has a different past and does not use it.
"""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.contracts.errors import say
from app.contracts.messages import Message
from app.contracts.turn import TurnStore
from app.store import branches as tree
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

    def latest(self, chat_id: str, *, leaf: int | None = None) -> ChatSummaryRecord | None:
        """The newest summary of the path ending at `leaf` (None: the active path)."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            bmap = tree.BranchMap.load(conn, cid)
            if not bmap:  # one line: the newest summary is the one
                row = conn.execute(
                    "SELECT * FROM chat_summaries WHERE chat_id = ? ORDER BY id DESC LIMIT 1", (cid,)
                ).fetchone()
                return _summary(row) if row else None
            end = tree.active_leaf(conn, cid) if leaf is None else leaf
            point = tree.path_point(conn, cid, bmap, end)
            rows = conn.execute(
                "SELECT s.id, s.keep_from_cursor, m.branch FROM chat_summaries s JOIN messages m"
                " ON m.chat_id = s.chat_id AND m.cursor = s.keep_from_cursor"
                " WHERE s.chat_id = ? ORDER BY s.id DESC",
                (cid,),
            )
            for sid, keep, branch in rows:
                if point.contains(int(branch), int(keep)):
                    row = conn.execute("SELECT * FROM chat_summaries WHERE id = ?", (sid,)).fetchone()
                    return _summary(row)
        return None

    def newest_id(self, chat_id: str) -> int | None:
        """The id of the chat's newest summary on any branch (the write guard of `add`)."""
        cid = validate_chat_id(chat_id)
        rows = self._db.query("SELECT MAX(id) FROM chat_summaries WHERE chat_id = ?", (cid,))
        return None if rows[0][0] is None else int(rows[0][0])

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
        """Store a new summary in one transaction. `expected_previous` (the chat's newest summary
        id, on any branch, when the new one was planned; None for none) guards against a
        concurrent writer; -1 skips it. A summary may not keep less than the newest summary of
        the same path folded already."""
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
                raise NotFound(say("chat.not_found", id=cid))
            newest = conn.execute("SELECT MAX(id) FROM chat_summaries WHERE chat_id = ?", (cid,)).fetchone()[
                0
            ]
            if expected_previous != -1 and newest != expected_previous:
                raise Conflict(f"chat {cid} was consolidated meanwhile")
            if newest is not None and (
                conn.execute(
                    "SELECT 1 FROM messages WHERE chat_id = ? AND cursor = ?", (cid, keep_from_cursor)
                ).fetchone()
            ):
                previous = self.latest(cid, leaf=keep_from_cursor)
                if previous is not None and keep_from_cursor < previous.keep_from_cursor:
                    raise ValueError("a new summary cannot keep messages an earlier summary already folded")
            elif newest is not None:
                last = conn.execute(
                    "SELECT keep_from_cursor FROM chat_summaries WHERE id = ?", (newest,)
                ).fetchone()[0]
                if keep_from_cursor < last:
                    raise ValueError("a new summary cannot keep messages an earlier summary already folded")
            cur = conn.execute(
                "INSERT INTO chat_summaries (chat_id, content, keep_from_cursor, created_at)"
                " VALUES (?,?,?,?)",
                (cid, text, keep_from_cursor, now),
            )
        return ChatSummaryRecord(int(cur.lastrowid or 0), cid, text, keep_from_cursor, now)


def summary_message(summary: ChatSummaryRecord) -> Message:
    return Message(role="system", content=SUMMARY_PREFIX + summary.content)


# Without a summary, a turn reads the path backwards only this many times the consolidation
# threshold: consolidation runs after every turn that passes the threshold, so a healthy chat
# stays well inside it, while a long imported (or never consolidated) chat is not read whole
# before every model call — its older part is what the next consolidation folds.
UNSUMMARISED_BUDGET_FACTOR = 2
# Told to the model when that budget left older messages out (consolidation has not folded them
# yet, e.g. it keeps failing): it must not act as if the chat started here.
LEFT_OUT_NOTE = (
    "Note: older messages of this conversation were left out of your context (they did not fit "
    "and have not been summarised yet). If the user refers to something you cannot see, say so "
    "and ask them to repeat it."
)


class ConsolidatedStore:
    """The TurnStore of a turn: history = latest summary of the path + messages from its
    keep_from_cursor (without a summary: the newest messages within the budget)."""

    def __init__(
        self,
        inner: TurnStore,
        chats: ChatRepository,
        summaries: SummaryRepository,
        threshold: Callable[[], int] | None = None,
        on_cut: Callable[[str], None] | None = None,
    ) -> None:
        self._on_cut = on_cut  # tells the user (an event) that older context was left out
        self._inner = inner
        self._chats = chats
        self._summaries = summaries
        self._threshold = threshold

    def history(self, chat_id: str, *, leaf: int | None = None) -> list[Message]:
        summary = self._summaries.latest(chat_id, leaf=leaf)
        if summary is None:
            if self._threshold is None:
                return self._inner.history(chat_id, leaf=leaf)
            budget = self._threshold() * UNSUMMARISED_BUDGET_FACTOR
            try:
                newest = self._chats.path_messages(chat_id, leaf=leaf, max_chars=budget)
            except NotFound:  # a chat reserved by the turn's own repository, not stored yet
                return self._inner.history(chat_id, leaf=leaf)
            cut = bool(newest) and newest[0].parent_cursor != tree.ROOT  # older ones did not fit
            if cut and self._on_cut is not None:
                self._on_cut(chat_id)
            return windowed([s.message for s in newest], cut=cut)
        tail = self._chats.history(chat_id, from_cursor=summary.keep_from_cursor, leaf=leaf)
        return [summary_message(summary), *tail]

    def append_turn(
        self, chat_id: str, turn_id: str, messages: Sequence[Message], *, parent: int | None = None
    ) -> object:
        return self._inner.append_turn(chat_id, turn_id, messages, parent=parent)


def windowed(messages: list[Message], *, cut: bool) -> list[Message]:
    """A history whose oldest part was cut: it starts at a user message (never with the
    answer, tool call or tool result of a turn whose question is gone) after a note saying
    that older messages were left out."""
    if not cut:
        return messages
    start = next((i for i, m in enumerate(messages) if m.role == "user"), len(messages))
    return [Message(role="system", content=LEFT_OUT_NOTE), *messages[start:]]


def _summary(row: sqlite3.Row) -> ChatSummaryRecord:
    return ChatSummaryRecord(
        id=int(row["id"]),
        chat_id=row["chat_id"],
        content=row["content"],
        keep_from_cursor=int(row["keep_from_cursor"]),
        created_at=row["created_at"],
    )
