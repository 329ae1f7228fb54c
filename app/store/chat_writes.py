"""ChatRepository, part 3: writing turns (one transaction each) and imported chats."""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Sequence

from app.contracts.errors import say
from app.contracts.messages import Message
from app.store import branches as tree
from app.store import visible
from app.store.chat_paths import ChatPaths
from app.store.chat_rows import ChatRecord, StoredMessage, imported_tree, message_row
from app.store.errors import Conflict, NotFound
from app.store.ids import validate_chat_id, validate_turn_id
from app.store.timeutil import utc_now_iso


class ChatWrites(ChatPaths):
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
                    raise NotFound(say("chat.not_found", id=cid))
                conn.execute(
                    "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?,?,?,?,?)",
                    (cid, reserved.title, int(reserved.title_auto), reserved.created_at, now),
                )
            if conn.execute(
                "SELECT 1 FROM messages WHERE chat_id = ? AND turn_id = ? LIMIT 1", (cid, tid)
            ).fetchone():
                raise Conflict(say("chat.turn_stored", turn=tid, id=cid))
            last = conn.execute(
                "SELECT COALESCE(MAX(cursor), 0) FROM messages WHERE chat_id = ?", (cid,)
            ).fetchone()[0]
            old_leaf = tree.active_leaf(conn, cid)
            at = old_leaf if parent is None else parent
            shown = visible.count_up_to(conn, cid, old_leaf, visible.stored_count(conn, cid), at)
            branch = tree.branch_for_child(conn, cid, tree.BranchMap.load(conn, cid), at, last + 1)
            stored = [
                StoredMessage(last + i, tid, m, now, at if i == 1 else last + i - 1)
                for i, m in enumerate(batch, start=1)
            ]
            conn.executemany(
                "INSERT INTO messages (chat_id, cursor, turn_id, role, content, tool_calls,"
                " tool_call_id, name, created_at, meta, branch) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(*message_row(cid, s), branch) for s in stored],
            )
            conn.execute(
                "UPDATE chats SET updated_at = ?, leaf_cursor = ? WHERE id = ?", (now, stored[-1].cursor, cid)
            )
            visible.store(conn, cid, shown + visible.batch_entries(batch))
        self._reserved.pop(cid, None)
        return stored

    def insert_imported(
        self,
        record: ChatRecord,
        messages: Sequence[StoredMessage],
        *,
        leaf: int | None = None,
        replace: bool = False,
    ) -> ChatRecord:
        """Write an imported chat with its messages (original cursors, turns, times and
        parents, in cursor order) in one transaction: all of it or nothing. `leaf` is the
        active leaf (None: the newest message). `replace` first deletes a chat of that id in
        the same transaction (an importer completing a chat an interrupted run left partial)."""
        cid = validate_chat_id(record.id)
        for s in messages:
            validate_turn_id(s.turn_id)
        branches, rows = imported_tree(messages, leaf)
        try:
            with self._db.transaction() as conn:
                if replace:
                    conn.execute("DELETE FROM chats WHERE id = ?", (cid,))
                conn.execute(
                    "INSERT INTO chats (id, title, title_auto, created_at, updated_at, leaf_cursor)"
                    " VALUES (?,?,?,?,?,?)",
                    (cid, record.title, int(record.title_auto), record.created_at, record.updated_at, leaf),
                )
                conn.executemany(
                    "INSERT INTO messages (chat_id, cursor, turn_id, role, content, tool_calls,"
                    " tool_call_id, name, created_at, meta, branch) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    [(*message_row(cid, s), b) for s, b in rows],
                )
                conn.executemany(
                    "INSERT INTO chat_branches (chat_id, branch, parent_branch, fork_cursor, first_cursor)"
                    " VALUES (?,?,?,?,?)",
                    [(cid, b.branch, b.parent_branch, b.fork_cursor, b.first_cursor) for b in branches],
                )
                if rows:
                    visible.store(conn, cid, visible.path_count(conn, cid, tree.active_leaf(conn, cid)))
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"chat {cid} could not be imported: {exc}") from exc
        return self.get(cid)
