"""Chats and their messages (SPEC S5.1, S8).

Messages carry a per-chat cursor that only grows. A turn's messages are written by one
`append_turn` call in one transaction, so a failed, cancelled or killed turn leaves nothing.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.messages import AttachmentRef, Mention, Message, ToolCall
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import new_id, validate_chat_id, validate_turn_id
from app.store.migrations import FTS_TABLE
from app.store.search import TRIGRAM, fts_query, like_patterns, snippet
from app.store.timeutil import utc_now_iso

MAX_TITLE = 200
SEARCH_OVERFETCH = 5  # index hits read per wanted result (tool messages are filtered out)
SHORT_TERM_SCAN_ROWS = 100_000  # newest messages scanned for terms too short for the index


@dataclass(frozen=True)
class ChatRecord:
    id: str
    title: str
    title_auto: bool  # True while the title is machine-made; a user rename sets it False
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class ChatActivity:
    message_count: int  # user and assistant messages (tool results are not counted)
    last_message_at: str | None


@dataclass(frozen=True)
class StoredMessage:
    cursor: int
    turn_id: str
    message: Message
    created_at: str


@dataclass(frozen=True)
class SearchHit:
    chat_id: str
    chat_title: str
    cursor: int
    role: str  # "user" or "assistant"
    snippet: str  # a short excerpt around the first match
    created_at: str


def _clean_title(title: str) -> str:
    cleaned = " ".join(title.split())
    if len(cleaned) > MAX_TITLE:
        cleaned = cleaned[: MAX_TITLE - 1] + "…"
    return cleaned


class ChatRepository:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._fts: bool | None = None  # whether full-text search is available (lazy)
        # Chats reserved by this process: stored only together with their first turn.
        self._reserved: dict[str, ChatRecord] = {}

    # ---- chats ------------------------------------------------------------------------------

    def create(self, title: str | None = None, *, chat_id: str | None = None) -> ChatRecord:
        """A new empty chat. `chat_id` is for imports; normally a fresh id is made."""
        cid = new_id() if chat_id is None else validate_chat_id(chat_id)
        now = utc_now_iso()
        record = ChatRecord(cid, _clean_title(title or ""), title is None, now, now)
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?,?,?,?,?)",
                    (record.id, record.title, int(record.title_auto), now, now),
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"chat {cid} already exists") from exc
        return record

    def reserve(self, title: str | None = None) -> ChatRecord:
        """A chat that exists only in this process until its first turn is stored: `append_turn`
        writes its row in the same transaction as the messages, so a process killed (or a turn
        failing) before that leaves no empty chat behind (`cashcode ask`)."""
        now = utc_now_iso()
        record = ChatRecord(new_id(), _clean_title(title or ""), title is None, now, now)
        self._reserved[record.id] = record
        return record

    def is_reserved(self, chat_id: str) -> bool:
        return validate_chat_id(chat_id) in self._reserved

    def get(self, chat_id: str) -> ChatRecord:
        cid = validate_chat_id(chat_id)
        rows = self._db.query("SELECT * FROM chats WHERE id = ?", (cid,))
        if not rows:
            raise NotFound(f"chat {cid} not found")
        return _chat(rows[0])

    def exists(self, chat_id: str) -> bool:
        cid = validate_chat_id(chat_id)
        return bool(self._db.query("SELECT 1 FROM chats WHERE id = ?", (cid,)))

    def list(self, limit: int = 100, offset: int = 0) -> builtins.list[ChatRecord]:
        """Most recently updated first."""
        if limit < 0 or offset < 0:
            raise ValueError("limit and offset must not be negative")
        rows = self._db.query(
            "SELECT * FROM chats ORDER BY updated_at DESC, rowid DESC LIMIT ? OFFSET ?", (limit, offset)
        )
        return [_chat(r) for r in rows]

    def list_page(
        self, limit: int = 100, *, before: tuple[str, str] | None = None, title_contains: str | None = None
    ) -> tuple[builtins.list[ChatRecord], tuple[str, str] | None]:
        """Up to `limit` chats, most recently updated first, strictly after the keyset `before`
        = (updated_at, id) of the previous page's last chat; and the keyset of the next page
        (None at the end). A keyset, unlike an offset, stays correct while chats are added or
        updated between page loads and reads only the rows it returns (index on updated_at)."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        where: builtins.list[str] = []
        params: builtins.list[object] = []
        if before is not None:
            # The first term bounds the index range; ties on updated_at continue by id.
            where.append("updated_at <= ? AND (updated_at < ? OR id > ?)")
            params += [before[0], before[0], validate_chat_id(before[1])]
        if title_contains:
            where.append("title LIKE ? ESCAPE '\\'")
            params += like_patterns([title_contains])
        sql = "SELECT * FROM chats" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._db.query(sql + " ORDER BY updated_at DESC, id LIMIT ?", (*params, limit + 1))
        page = [_chat(r) for r in rows[:limit]]
        more = len(rows) > limit
        return page, ((page[-1].updated_at, page[-1].id) if more else None)

    def activity(self, chat_ids: Sequence[str] | None = None) -> dict[str, ChatActivity]:
        """Per chat: how many user/assistant messages it has and when the last one was written.
        `None` means every chat (one grouped query for the chat list)."""
        # Kept by triggers (app/store/activity.py): one row per chat, never a scan of messages.
        sql = "SELECT chat_id, message_count, last_message_at FROM chat_activity{where}"
        if chat_ids is None:
            rows = self._db.query(sql.format(where=""))
        else:
            ids = [validate_chat_id(c) for c in chat_ids]
            if not ids:
                return {}
            marks = ",".join("?" for _ in ids)
            rows = self._db.query(sql.format(where=f" WHERE chat_id IN ({marks})"), tuple(ids))
        return {r[0]: ChatActivity(message_count=int(r[1]), last_message_at=r[2]) for r in rows}

    def rename(self, chat_id: str, title: str, *, auto: bool = False) -> ChatRecord:
        """Set the title. An automatic title (`auto=True`) never replaces one the user chose;
        the chat is then returned unchanged."""
        cid = validate_chat_id(chat_id)
        cleaned = _clean_title(title)
        if not cleaned:
            raise ValueError("a chat title must not be empty")
        with self._db.transaction() as conn:
            row = conn.execute("SELECT * FROM chats WHERE id = ?", (cid,)).fetchone()
            if row is None:
                raise NotFound(f"chat {cid} not found")
            if auto and not row["title_auto"]:
                return _chat(row)
            conn.execute("UPDATE chats SET title = ?, title_auto = ? WHERE id = ?", (cleaned, int(auto), cid))
            row = conn.execute("SELECT * FROM chats WHERE id = ?", (cid,)).fetchone()
        return _chat(row)

    def delete(self, chat_id: str) -> None:
        """Delete a chat and (by cascade) its messages. Usage records are kept for totals."""
        cid = validate_chat_id(chat_id)
        with self._db.transaction() as conn:
            if conn.execute("DELETE FROM chats WHERE id = ?", (cid,)).rowcount == 0:
                raise NotFound(f"chat {cid} not found")

    # ---- messages ---------------------------------------------------------------------------

    def append_turn(
        self, chat_id: str, turn_id: str, messages: Sequence[Message]
    ) -> builtins.list[StoredMessage]:
        """Write all messages of one completed turn atomically; cursors continue from max+1."""
        cid = validate_chat_id(chat_id)
        tid = validate_turn_id(turn_id)
        batch = tuple(messages)
        for m in batch:
            if not isinstance(m, Message):
                raise TypeError(f"append_turn expects Message objects, got {type(m).__name__}")
        if not batch:
            return []
        now = utc_now_iso()
        with self._db.transaction() as conn:
            if conn.execute("SELECT 1 FROM chats WHERE id = ?", (cid,)).fetchone() is None:
                reserved = self._reserved.get(cid)
                if reserved is None:
                    raise NotFound(f"chat {cid} not found")
                conn.execute(
                    "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?,?,?,?,?)",
                    (cid, reserved.title, int(reserved.title_auto), reserved.created_at, now),
                )
            if conn.execute(
                "SELECT 1 FROM messages WHERE chat_id = ? AND turn_id = ? LIMIT 1", (cid, tid)
            ).fetchone():
                raise Conflict(f"turn {tid} of chat {cid} is already stored")
            last = conn.execute(
                "SELECT COALESCE(MAX(cursor), 0) FROM messages WHERE chat_id = ?", (cid,)
            ).fetchone()[0]
            stored = [StoredMessage(last + i, tid, m, now) for i, m in enumerate(batch, start=1)]
            conn.executemany(
                "INSERT INTO messages (chat_id, cursor, turn_id, role, content, tool_calls,"
                " tool_call_id, name, created_at, meta) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [_message_row(cid, s) for s in stored],
            )
            conn.execute("UPDATE chats SET updated_at = ? WHERE id = ?", (now, cid))
        self._reserved.pop(cid, None)
        return stored

    def insert_imported(self, record: ChatRecord, messages: Sequence[StoredMessage]) -> ChatRecord:
        """Write an imported chat with its messages (original cursors, turns and times) in one
        transaction: all of it or nothing."""
        cid = validate_chat_id(record.id)
        for s in messages:
            validate_turn_id(s.turn_id)
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?,?,?,?,?)",
                    (cid, record.title, int(record.title_auto), record.created_at, record.updated_at),
                )
                conn.executemany(
                    "INSERT INTO messages (chat_id, cursor, turn_id, role, content, tool_calls,"
                    " tool_call_id, name, created_at, meta) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    [_message_row(cid, s) for s in messages],
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"chat {cid} could not be imported: {exc}") from exc
        return self.get(cid)

    def page(
        self, chat_id: str, *, before_cursor: int | None = None, limit: int = 200
    ) -> tuple[builtins.list[StoredMessage], bool]:
        """Up to `limit` messages just before `before_cursor` (newest page when None), in
        cursor order, and whether older messages exist."""
        cid = validate_chat_id(chat_id)
        if limit < 1:
            raise ValueError("limit must be at least 1")
        bound = before_cursor if before_cursor is not None else 2**62
        with self._db.reading() as conn:
            if conn.execute("SELECT 1 FROM chats WHERE id = ?", (cid,)).fetchone() is None:
                raise NotFound(f"chat {cid} not found")
            rows = conn.execute(
                "SELECT * FROM messages WHERE chat_id = ? AND cursor < ? ORDER BY cursor DESC LIMIT ?",
                (cid, bound, limit + 1),
            ).fetchall()
        has_more = len(rows) > limit
        return [_stored(r) for r in reversed(rows[:limit])], has_more

    def stored_messages(
        self, chat_id: str, *, from_cursor: int = 0, limit: int | None = None
    ) -> builtins.list[StoredMessage]:
        """Messages with cursor >= `from_cursor` (the first `limit` of them), in cursor order."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            if conn.execute("SELECT 1 FROM chats WHERE id = ?", (cid,)).fetchone() is None:
                if cid in self._reserved:
                    return []  # reserved, not stored yet: no history
                raise NotFound(f"chat {cid} not found")
            rows = conn.execute(
                "SELECT * FROM messages WHERE chat_id = ? AND cursor >= ? ORDER BY cursor LIMIT ?",
                (cid, from_cursor, -1 if limit is None else limit),
            ).fetchall()
        return [_stored(r) for r in rows]

    def history(self, chat_id: str, *, from_cursor: int = 0) -> builtins.list[Message]:
        """The conversation as `Message`s in cursor order (optionally from a cursor on)."""
        return [s.message for s in self.stored_messages(chat_id, from_cursor=from_cursor)]

    def last_cursor(self, chat_id: str) -> int:
        """The highest cursor in the chat, 0 when it has no messages."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            if conn.execute("SELECT 1 FROM chats WHERE id = ?", (cid,)).fetchone() is None:
                raise NotFound(f"chat {cid} not found")
            row = conn.execute(
                "SELECT COALESCE(MAX(cursor), 0) FROM messages WHERE chat_id = ?", (cid,)
            ).fetchone()
        return int(row[0])

    def search(self, query: str, *, limit: int = 50) -> builtins.list[SearchHit]:
        """User and assistant messages containing every word of `query`, newest first."""
        terms = query.split()
        if not terms or limit < 1:
            return []
        base = (
            "SELECT m.chat_id, c.title, m.cursor, m.role, m.content, m.created_at"
            " FROM messages m JOIN chats c ON c.id = m.chat_id"
            " WHERE m.role IN ('user', 'assistant') AND "
        )
        long_terms = [t for t in terms if len(t) >= TRIGRAM]
        short = like_patterns([t for t in terms if len(t) < TRIGRAM])
        params: builtins.list[object]
        if self._has_fts() and long_terms:
            # Driven by the index, newest first, so a common word does not materialise every
            # match and a rare one does not scan the whole table (bench/bench_chat.py). Tool
            # output is indexed too, hence the over-fetch before the role and short-term filters.
            sql = base + (
                f"m.id IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
                " ORDER BY rowid DESC LIMIT ?)"
            )
            params = [fts_query(long_terms), limit * SEARCH_OVERFETCH * (4 if short else 1)]
            sql += "".join(" AND m.content LIKE ? ESCAPE '\\'" for _ in short)
            params += short
        elif self._has_fts():
            # Only terms a trigram index cannot match (e.g. a two-character Chinese word): a
            # scan, bounded to the newest messages so typing never stalls on a huge history.
            sql = base + " AND ".join("m.content LIKE ? ESCAPE '\\'" for _ in short)
            sql += " AND m.id > (SELECT COALESCE(MAX(id), 0) FROM messages) - ?"
            params = [*short, SHORT_TERM_SCAN_ROWS]
        else:
            patterns = like_patterns(terms)
            sql = base + " AND ".join("m.content LIKE ? ESCAPE '\\'" for _ in patterns)
            params = [*patterns]
        rows = self._db.query(sql + " ORDER BY m.id DESC LIMIT ?", (*params, limit))
        return [SearchHit(r[0], r[1], r[2], r[3], snippet(r[4], terms), r[5]) for r in rows]

    def _has_fts(self) -> bool:
        if self._fts is None:
            self._fts = self._db.has_table(FTS_TABLE)
        return self._fts


def _chat(row: sqlite3.Row) -> ChatRecord:
    return ChatRecord(
        id=row["id"],
        title=row["title"],
        title_auto=bool(row["title_auto"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _message_row(chat_id: str, s: StoredMessage) -> tuple[object, ...]:
    m = s.message
    calls = json.dumps([{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls])
    return (
        chat_id, s.cursor, s.turn_id, m.role, m.content, calls, m.tool_call_id, m.name, s.created_at,
        _meta_json(m),
    )


def _meta_json(m: Message) -> str:
    meta: dict[str, object] = {}
    if m.mentions:
        meta["mentions"] = [x.model_dump() for x in m.mentions]
    if m.attachments:
        meta["attachments"] = [x.model_dump() for x in m.attachments]
    return json.dumps(meta, ensure_ascii=False)


def _stored(row: sqlite3.Row) -> StoredMessage:
    calls = tuple(ToolCall(**c) for c in json.loads(row["tool_calls"]))
    meta = json.loads(row["meta"]) if row["meta"] not in (None, "", "{}") else {}
    message = Message(
        role=row["role"],
        content=row["content"],
        tool_calls=calls,
        tool_call_id=row["tool_call_id"],
        name=row["name"],
        mentions=tuple(Mention(**x) for x in meta.get("mentions", ())),
        attachments=tuple(AttachmentRef(**x) for x in meta.get("attachments", ())),
    )
    return StoredMessage(
        cursor=row["cursor"], turn_id=row["turn_id"], message=message, created_at=row["created_at"]
    )
