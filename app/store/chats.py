"""Chats and their messages (SPEC S5.1, S8).

Messages carry a per-chat cursor that only grows. A turn's messages are written by one
`append_turn` call in one transaction, so a failed, cancelled or killed turn leaves nothing.
Messages form a tree (edit and regenerate start branches, see app/store/branches.py); reads
for the UI and the model follow the active path from its leaf backwards.

A little over 600 lines on purpose: this is the one repository of the chats and messages tables
(create, page, append, import, search, activity); the branch tree's queries live in
app/store/branches.py and the search helpers in app/store/search.py.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.contracts.messages import AttachmentRef, Mention, Message, ToolCall
from app.store import branches as tree
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
    parent_cursor: int = 0  # the previous message on its path (0: a first message)


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

    def activity_of(self, chat_id: str) -> ChatActivity:
        """One chat's counters (kept by triggers, app/store/activity.py): no scan of its rows."""
        return self.activity([chat_id]).get(validate_chat_id(chat_id), ChatActivity(0, None))

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
        self, chat_id: str, turn_id: str, messages: Sequence[Message], *, parent: int | None = None
    ) -> builtins.list[StoredMessage]:
        """Write all messages of one completed turn atomically; cursors continue from max+1.
        The first message's parent is `parent` (a cursor, 0 for a new first message), by
        default the active leaf; the turn's last message becomes the active leaf."""
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
            at = tree.active_leaf(conn, cid) if parent is None else parent
            branch = tree.branch_for_child(conn, cid, tree.BranchMap.load(conn, cid), at, last + 1)
            stored = [
                StoredMessage(last + i, tid, m, now, at if i == 1 else last + i - 1)
                for i, m in enumerate(batch, start=1)
            ]
            conn.executemany(
                "INSERT INTO messages (chat_id, cursor, turn_id, role, content, tool_calls,"
                " tool_call_id, name, created_at, meta, branch) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(*_message_row(cid, s), branch) for s in stored],
            )
            conn.execute(
                "UPDATE chats SET updated_at = ?, leaf_cursor = ? WHERE id = ?", (now, stored[-1].cursor, cid)
            )
        self._reserved.pop(cid, None)
        return stored

    def insert_imported(
        self, record: ChatRecord, messages: Sequence[StoredMessage], *, leaf: int | None = None
    ) -> ChatRecord:
        """Write an imported chat with its messages (original cursors, turns, times and
        parents, in cursor order) in one transaction: all of it or nothing. `leaf` is the
        active leaf (None: the newest message)."""
        cid = validate_chat_id(record.id)
        for s in messages:
            validate_turn_id(s.turn_id)
        branches, rows = _imported_tree(messages, leaf)
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO chats (id, title, title_auto, created_at, updated_at, leaf_cursor)"
                    " VALUES (?,?,?,?,?,?)",
                    (cid, record.title, int(record.title_auto), record.created_at, record.updated_at, leaf),
                )
                conn.executemany(
                    "INSERT INTO messages (chat_id, cursor, turn_id, role, content, tool_calls,"
                    " tool_call_id, name, created_at, meta, branch) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    [(*_message_row(cid, s), b) for s, b in rows],
                )
                conn.executemany(
                    "INSERT INTO chat_branches (chat_id, branch, parent_branch, fork_cursor, first_cursor)"
                    " VALUES (?,?,?,?,?)",
                    [(cid, b.branch, b.parent_branch, b.fork_cursor, b.first_cursor) for b in branches],
                )
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"chat {cid} could not be imported: {exc}") from exc
        return self.get(cid)

    def page(
        self, chat_id: str, *, before_cursor: int | None = None, limit: int = 200
    ) -> tuple[builtins.list[StoredMessage], bool]:
        """Up to `limit` messages of the active path just before `before_cursor` (from the
        leaf when None), in path order, and whether older messages exist on the path."""
        stored, has_more, _ = self.page_view(chat_id, before_cursor=before_cursor, limit=limit)
        return stored, has_more

    def page_view(
        self, chat_id: str, *, before_cursor: int | None = None, limit: int = 200
    ) -> tuple[builtins.list[StoredMessage], bool, dict[int, builtins.list[int]]]:
        """`page` plus the siblings of its messages that have any (see `siblings`), in one read."""
        cid = validate_chat_id(chat_id)
        if limit < 1:
            raise ValueError("limit must be at least 1")
        with self._db.reading() as conn:
            start = tree.active_leaf(conn, cid)
            bmap = tree.BranchMap.load(conn, cid)
            if before_cursor is not None and conn.execute(
                "SELECT 1 FROM messages WHERE chat_id = ? AND cursor = ?", (cid, before_cursor)
            ).fetchone():
                start = before_cursor  # the path through it, even if another became active
            if start == tree.ROOT:
                return [], False, {}
            rows: builtins.list[sqlite3.Row] = []
            for row in tree.walk_back(conn, cid, tree.path_point(conn, cid, bmap, start)):
                if before_cursor is not None and row["cursor"] >= before_cursor:
                    continue
                rows.append(row)
                if len(rows) > limit:
                    break
            oldest_parent = int(rows[limit]["cursor"]) if len(rows) > limit else tree.ROOT
            siblings = tree.sibling_map(conn, cid, bmap, rows[:limit], oldest_parent)
        return _linked(rows[:limit], oldest_parent), len(rows) > limit, siblings

    def stored_messages(
        self, chat_id: str, *, from_cursor: int = 0, limit: int | None = None
    ) -> builtins.list[StoredMessage]:
        """Messages of every branch with cursor >= `from_cursor` (the first `limit` of them),
        in cursor order, each with its parent."""
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
            bmap = tree.BranchMap.load(conn, cid)
            last: dict[int, int] = {}  # branch -> its latest cursor seen so far
            out = []
            for r in rows:
                b, cursor = int(r["branch"]), int(r["cursor"])
                parent = last.get(b)
                if parent is None:
                    first = bmap.get(b)
                    if first is not None and first.first_cursor == cursor:
                        parent = first.fork_cursor
                    else:
                        prev = conn.execute(
                            "SELECT MAX(cursor) FROM messages"
                            " WHERE chat_id = ? AND branch = ? AND cursor < ?",
                            (cid, b, cursor),
                        ).fetchone()[0]
                        parent = int(prev or 0)
                last[b] = cursor
                out.append(_stored(r, parent))
        return out

    def path_messages(
        self,
        chat_id: str,
        *,
        from_cursor: int = 0,
        leaf: int | None = None,
        max_chars: int | None = None,
    ) -> builtins.list[StoredMessage]:
        """The path to `leaf` (default: the active leaf) from `from_cursor` on, in path order.
        With `max_chars`, only the newest messages that fit (read backwards, stopping there),
        never starting with a tool result (its call stays with it)."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            if conn.execute("SELECT 1 FROM chats WHERE id = ?", (cid,)).fetchone() is None:
                if cid in self._reserved:
                    return []
                raise NotFound(f"chat {cid} not found")
            end = tree.active_leaf(conn, cid) if leaf is None else leaf
            if end == tree.ROOT:
                return []
            bmap = tree.BranchMap.load(conn, cid)
            rows: builtins.list[sqlite3.Row] = []
            used, parent = 0, tree.ROOT
            for row in tree.walk_back(conn, cid, tree.path_point(conn, cid, bmap, end)):
                size = _row_chars(row)
                full = max_chars is not None and bool(rows) and used + size > max_chars
                if row["cursor"] < from_cursor or (full and rows[-1]["role"] != "tool"):
                    parent = int(row["cursor"])  # the first message not taken is the parent
                    break
                rows.append(row)
                used += size
        return _linked(rows, parent)

    def history(
        self, chat_id: str, *, from_cursor: int = 0, leaf: int | None = None
    ) -> builtins.list[Message]:
        """The conversation on the active path (or the path to `leaf`) as `Message`s."""
        return [s.message for s in self.path_messages(chat_id, from_cursor=from_cursor, leaf=leaf)]

    def path_after(
        self, chat_id: str, *, after: int, leaf: int | None = None, limit: int = 200
    ) -> builtins.list[StoredMessage]:
        """Up to `limit` messages of the path to `leaf` (default: the active leaf) whose cursor
        is above `after`, oldest first: the path paged forwards."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            found = self._point(conn, cid, leaf)
            if found is None:
                return []
            bmap, point = found
            rows = tree.walk_forward(conn, cid, point, min_cursor=after + 1, limit=limit)
            if not rows:
                return []
            back = tree.walk_back(conn, cid, tree.path_point(conn, cid, bmap, int(rows[0]["cursor"])))
            next(back)
            before = next(back, None)
        parent = tree.ROOT if before is None else int(before["cursor"])
        out = []
        for r in rows:
            out.append(_stored(r, parent))
            parent = int(r["cursor"])
        return out

    def path_chars(self, chat_id: str, *, from_cursor: int = 0, leaf: int | None = None) -> int:
        """Context characters (text plus tool-call names and arguments) of the path to `leaf`
        from `from_cursor` on, summed inside SQLite."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            found = self._point(conn, cid, leaf)
            return 0 if found is None else tree.path_chars(conn, cid, found[1], min_cursor=from_cursor)

    def _point(
        self, conn: sqlite3.Connection, cid: str, leaf: int | None
    ) -> tuple[tree.BranchMap, tree.PathPoint] | None:
        """Where the path to `leaf` (default: active) ends; None for an empty or reserved chat."""
        if conn.execute("SELECT 1 FROM chats WHERE id = ?", (cid,)).fetchone() is None:
            if cid in self._reserved:
                return None
            raise NotFound(f"chat {cid} not found")
        end = tree.active_leaf(conn, cid) if leaf is None else leaf
        if end == tree.ROOT:
            return None
        bmap = tree.BranchMap.load(conn, cid)
        return bmap, tree.path_point(conn, cid, bmap, end)

    # ---- branches ---------------------------------------------------------------------------

    def leaf(self, chat_id: str) -> int:
        """The active leaf's cursor (0 when the chat has no messages)."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            return tree.active_leaf(conn, cid)

    def message(self, chat_id: str, cursor: int) -> StoredMessage:
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT * FROM messages WHERE chat_id = ? AND cursor = ?", (cid, cursor)
            ).fetchone()
            if row is None:
                raise NotFound(f"message {cursor} of chat {cid} not found")
            bmap = tree.BranchMap.load(conn, cid)
            walk = tree.walk_back(conn, cid, tree.path_point(conn, cid, bmap, cursor))
            next(walk)
            parent = next(walk, None)
        return _stored(row, 0 if parent is None else int(parent["cursor"]))

    def user_message_at_or_above(self, chat_id: str, cursor: int) -> StoredMessage:
        """Message `cursor` when it is a user message, else the nearest user message above it
        on its path (the one its answer replies to). NotFound when there is none."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            bmap = tree.BranchMap.load(conn, cid)
            found: sqlite3.Row | None = None
            parent = tree.ROOT
            for row in tree.walk_back(conn, cid, tree.path_point(conn, cid, bmap, cursor)):
                if found is not None:
                    parent = int(row["cursor"])
                    break
                if row["role"] == "user":
                    found = row
        if found is None:
            raise NotFound(f"message {cursor} of chat {cid} answers no user message")
        return _stored(found, parent)

    def on_path(self, chat_id: str, cursor: int, *, leaf: int | None = None) -> bool:
        """Whether message `cursor` is on the active path (or the path to `leaf`)."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            end = tree.active_leaf(conn, cid) if leaf is None else leaf
            bmap = tree.BranchMap.load(conn, cid)
            point = tree.path_point(conn, cid, bmap, end)
            return point.contains(tree.branch_of(conn, cid, cursor), cursor)

    def switch_branch(self, chat_id: str, cursor: int) -> int:
        """Make the path through message `cursor` active and return the new leaf: unchanged when
        the message is on the active path already, else the newest leaf below it."""
        cid = validate_chat_id(chat_id)
        with self._db.transaction() as conn:
            leaf = tree.active_leaf(conn, cid)
            bmap = tree.BranchMap.load(conn, cid)
            branch = tree.branch_of(conn, cid, cursor)
            if tree.path_point(conn, cid, bmap, leaf).contains(branch, cursor):
                return leaf
            leaf = tree.newest_leaf_below(conn, cid, bmap, cursor)
            conn.execute("UPDATE chats SET leaf_cursor = ? WHERE id = ?", (leaf, cid))
        return leaf

    def siblings(self, chat_id: str, messages: Sequence[StoredMessage]) -> dict[int, builtins.list[int]]:
        """For each given message that has siblings: the cursors of all children of its parent
        (itself included), oldest first. Messages without siblings are left out."""
        cid = validate_chat_id(chat_id)
        out: dict[int, builtins.list[int]] = {}
        with self._db.reading() as conn:
            bmap = tree.BranchMap.load(conn, cid)
            if not bmap:
                return out
            for s in messages:
                if bmap.forked_at(s.parent_cursor):
                    out[s.cursor] = tree.children(conn, cid, bmap, s.parent_cursor)
        return out

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
    if m.stopped:
        meta["stopped"] = True
    return json.dumps(meta, ensure_ascii=False)


def _linked(rows: Sequence[sqlite3.Row], oldest_parent: int) -> builtins.list[StoredMessage]:
    """Rows of a path read newest first → StoredMessages in path order, each with its parent
    (the next older row; `oldest_parent` for the oldest)."""
    out = []
    for i, r in enumerate(rows):
        out.append(_stored(r, int(rows[i + 1]["cursor"]) if i + 1 < len(rows) else oldest_parent))
    out.reverse()
    return out


def _row_chars(row: sqlite3.Row) -> int:
    return len(row["content"]) + len(row["tool_calls"])


def _imported_tree(
    messages: Sequence[StoredMessage], leaf: int | None
) -> tuple[builtins.list[tree.BranchRow], builtins.list[tuple[StoredMessage, int]]]:
    """Branches for imported messages from their parents (same rule as append_turn: a parent's
    first child continues its branch, a later child starts a new one). ValueError when a parent
    is not an earlier message of the chat or `leaf` is not one of its messages."""
    branch_of: dict[int, int] = {}
    has_child: set[int] = set()
    made: builtins.list[tree.BranchRow] = []
    rows = []
    prev = 0
    for s in sorted(messages, key=lambda x: x.cursor):
        p = s.parent_cursor
        if s.cursor <= prev or (p != tree.ROOT and p not in branch_of):
            raise ValueError(f"message {s.cursor}: its parent {p} is not an earlier message")
        if p in has_child or (p == tree.ROOT and branch_of):
            parent_branch = tree.NO_BRANCH if p == tree.ROOT else branch_of[p]
            made.append(tree.BranchRow(len(made) + 1, parent_branch, p, s.cursor))
            b = len(made)
        else:
            b = 0 if p == tree.ROOT else branch_of[p]
        has_child.add(p)
        branch_of[s.cursor] = b
        rows.append((s, b))
        prev = s.cursor
    if leaf is not None and leaf not in branch_of:
        raise ValueError(f"the active leaf {leaf} is not a message of the chat")
    return made, rows


def _stored(row: sqlite3.Row, parent: int = 0) -> StoredMessage:
    # Most rows hold no calls and no meta: skipping their JSON parse is most of opening a chat.
    raw_calls, raw_meta = row["tool_calls"], row["meta"]
    calls = () if raw_calls == "[]" else tuple(ToolCall(**c) for c in json.loads(raw_calls))
    meta = json.loads(raw_meta) if raw_meta not in (None, "", "{}") else {}
    message = Message(
        role=row["role"],
        content=row["content"],
        tool_calls=calls,
        tool_call_id=row["tool_call_id"],
        name=row["name"],
        mentions=tuple(Mention(**x) for x in meta.get("mentions", ())) if meta else (),
        attachments=tuple(AttachmentRef(**x) for x in meta.get("attachments", ())) if meta else (),
        stopped=bool(meta.get("stopped", False)) if meta else False,
    )
    return StoredMessage(
        cursor=row["cursor"],
        turn_id=row["turn_id"],
        message=message,
        created_at=row["created_at"],
        parent_cursor=parent,
    )
