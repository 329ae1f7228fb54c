"""ChatRepository, part 1: the chats themselves (create, reserve, get, list, rename, delete, activity)."""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Sequence

from app.contracts.errors import say
from app.store.chat_rows import ChatActivity, ChatRecord, chat_record, clean_title
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import new_id, validate_chat_id
from app.store.search import like_patterns
from app.store.timeutil import utc_now_iso

PREVIEW_CHARS = 80


def preview_text(text: str) -> str:
    """One line, at most PREVIEW_CHARS characters (the last one `…` when cut)."""
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1].rstrip() + "…"


class ChatRecords:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._fts: bool | None = None  # whether full-text search is available (lazy)
        # Chats reserved by this process: stored only together with their first turn.
        self._reserved: dict[str, ChatRecord] = {}

    def create(self, title: str | None = None, *, chat_id: str | None = None) -> ChatRecord:
        """A new empty chat. `chat_id` is for imports; normally a fresh id is made."""
        cid = new_id() if chat_id is None else validate_chat_id(chat_id)
        now = utc_now_iso()
        record = ChatRecord(cid, clean_title(title or ""), title is None, now, now)
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?,?,?,?,?)",
                    (record.id, record.title, int(record.title_auto), now, now),
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(say("chat.exists", id=cid)) from exc
        return record

    def reserve(
        self, title: str | None = None, *, chat_id: str | None = None, title_auto: bool | None = None
    ) -> ChatRecord:
        """A chat that exists only in this process until its first turn is stored: `append_turn`
        writes its row in the same transaction as the messages, so a process killed (or a turn
        failing) before that leaves no empty chat behind (`cashcode ask`). `chat_id`: the id it
        had before a restart (a checkpointed first turn going on, issue 35 item 3)."""
        now = utc_now_iso()
        cid = new_id() if chat_id is None else validate_chat_id(chat_id)
        auto = title is None if title_auto is None else title_auto
        record = ChatRecord(cid, clean_title(title or ""), auto, now, now)
        self._reserved[record.id] = record
        return record

    def reserved(self, chat_id: str) -> ChatRecord | None:
        """The chat as reserved in this process (None: stored, or unknown)."""
        return self._reserved.get(chat_id)

    def is_reserved(self, chat_id: str) -> bool:
        return validate_chat_id(chat_id) in self._reserved

    def get(self, chat_id: str) -> ChatRecord:
        cid = validate_chat_id(chat_id)
        rows = self._db.query("SELECT * FROM chats WHERE id = ?", (cid,))
        if not rows:
            raise NotFound(say("chat.not_found", id=cid))
        return chat_record(rows[0])

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
        return [chat_record(r) for r in rows]

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
        page = [chat_record(r) for r in rows[:limit]]
        more = len(rows) > limit
        return page, ((page[-1].updated_at, page[-1].id) if more else None)

    def activity(self, chat_ids: Sequence[str] | None = None) -> dict[str, ChatActivity]:
        """Per chat: how many messages its active path shows and when the last one was written.
        `None` means every chat (one grouped query for the chat list)."""
        # Kept by triggers (app/store/activity.py): one row per chat, never a scan of messages.
        # visible_count: what the chat shows (app/store/visible.py); NULL only for rows written
        # past the repository, which then read as their stored user/assistant rows.
        sql = (
            "SELECT chat_id, COALESCE(visible_count, message_count), last_message_at"
            " FROM chat_activity{where}"
        )
        if chat_ids is None:
            rows = self._db.query(sql.format(where=""))
        else:
            ids = [validate_chat_id(c) for c in chat_ids]
            if not ids:
                return {}
            marks = ",".join("?" for _ in ids)
            rows = self._db.query(sql.format(where=f" WHERE chat_id IN ({marks})"), tuple(ids))
        return {r[0]: ChatActivity(message_count=int(r[1]), last_message_at=r[2]) for r in rows}

    def previews(self, chat_ids: Sequence[str]) -> dict[str, str]:
        """Per chat: its last user or assistant text on the shown branch, on one line and at most
        PREVIEW_CHARS long ("" when it has none). One indexed read per listed chat."""
        ids = [validate_chat_id(c) for c in chat_ids]
        if not ids:
            return {}
        marks = ",".join("?" for _ in ids)
        rows = self._db.query(
            "SELECT c.id, (SELECT substr(m.content, 1, ?) FROM messages m"
            "  WHERE m.chat_id = c.id AND m.role IN ('user', 'assistant') AND m.content != ''"
            "  AND m.branch = COALESCE((SELECT l.branch FROM messages l"
            "      WHERE l.chat_id = c.id AND l.cursor = c.leaf_cursor), 0)"
            "  AND m.cursor <= COALESCE(c.leaf_cursor, m.cursor)"
            "  ORDER BY m.cursor DESC LIMIT 1)"
            f" FROM chats c WHERE c.id IN ({marks})",
            (PREVIEW_CHARS * 4, *ids),
        )
        return {r[0]: preview_text(r[1] or "") for r in rows}

    def activity_of(self, chat_id: str) -> ChatActivity:
        """One chat's counters (kept by triggers, app/store/activity.py): no scan of its rows."""
        return self.activity([chat_id]).get(validate_chat_id(chat_id), ChatActivity(0, None))

    def rename(self, chat_id: str, title: str, *, auto: bool = False) -> ChatRecord:
        """Set the title. An automatic title (`auto=True`) never replaces one the user chose;
        the chat is then returned unchanged."""
        cid = validate_chat_id(chat_id)
        cleaned = clean_title(title)
        if not cleaned:
            raise ValueError("a chat title must not be empty")
        reserved = self._reserved.get(cid)
        if reserved is not None:  # not stored yet: its first turn writes the row with this title
            if auto and not reserved.title_auto:
                return reserved
            self._reserved[cid] = ChatRecord(cid, cleaned, auto, reserved.created_at, reserved.updated_at)
            return self._reserved[cid]
        with self._db.transaction() as conn:
            row = conn.execute("SELECT * FROM chats WHERE id = ?", (cid,)).fetchone()
            if row is None:
                raise NotFound(say("chat.not_found", id=cid))
            if auto and not row["title_auto"]:
                return chat_record(row)
            conn.execute("UPDATE chats SET title = ?, title_auto = ? WHERE id = ?", (cleaned, int(auto), cid))
            row = conn.execute("SELECT * FROM chats WHERE id = ?", (cid,)).fetchone()
        return chat_record(row)

    def delete(self, chat_id: str) -> None:
        """Delete a chat and (by cascade) its messages. Usage records are kept for totals."""
        cid = validate_chat_id(chat_id)
        with self._db.transaction() as conn:
            if conn.execute("DELETE FROM chats WHERE id = ?", (cid,)).rowcount == 0:
                raise NotFound(say("chat.not_found", id=cid))

    # ---- messages ---------------------------------------------------------------------------
