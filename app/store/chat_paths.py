"""ChatRepository, part 2: reading messages along the tree (pages, paths, branches)."""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Sequence

from app.contracts.errors import say
from app.contracts.messages import Message
from app.store import branches as tree
from app.store import visible
from app.store.chat_records import ChatRecords
from app.store.chat_rows import StoredMessage, linked_messages, row_chars, stored_message
from app.store.chat_versions import OffPath, off_path
from app.store.errors import NotFound
from app.store.ids import validate_chat_id


class ChatPaths(ChatRecords):
    def page(
        self, chat_id: str, *, before_cursor: int | None = None, limit: int = 200
    ) -> tuple[builtins.list[StoredMessage], bool]:
        """Up to `limit` messages of the active path just before `before_cursor` (from the
        leaf when None), in path order, and whether older messages exist on the path."""
        stored, has_more, _ = self.page_view(chat_id, before_cursor=before_cursor, limit=limit)
        return stored, has_more

    def page_view(
        self, chat_id: str, *, before_cursor: int | None = None, limit: int = 200, leaf: int | None = None
    ) -> tuple[builtins.list[StoredMessage], bool, dict[int, builtins.list[int]]]:
        """`page` plus the siblings of its messages that have any (see `siblings`), in one read.
        `leaf`: the path to that message instead of the active one (nothing is stored)."""
        cid = validate_chat_id(chat_id)
        if limit < 1:
            raise ValueError("limit must be at least 1")
        with self._db.reading() as conn:
            start = tree.active_leaf(conn, cid)
            if leaf is not None:
                tree.branch_of(conn, cid, leaf)  # NotFound for a message the chat does not have
                start = leaf
            bmap = tree.BranchMap.load(conn, cid)
            if (
                before_cursor is not None
                and conn.execute(
                    "SELECT 1 FROM messages WHERE chat_id = ? AND cursor = ?", (cid, before_cursor)
                ).fetchone()
            ):
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
        return linked_messages(rows[:limit], oldest_parent), len(rows) > limit, siblings

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
                raise NotFound(say("chat.not_found", id=cid))
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
                out.append(stored_message(r, parent))
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
                raise NotFound(say("chat.not_found", id=cid))
            end = tree.active_leaf(conn, cid) if leaf is None else leaf
            if end == tree.ROOT:
                return []
            bmap = tree.BranchMap.load(conn, cid)
            rows: builtins.list[sqlite3.Row] = []
            used, parent = 0, tree.ROOT
            for row in tree.walk_back(conn, cid, tree.path_point(conn, cid, bmap, end)):
                size = row_chars(row)
                full = max_chars is not None and bool(rows) and used + size > max_chars
                if row["cursor"] < from_cursor or (full and rows[-1]["role"] != "tool"):
                    parent = int(row["cursor"])  # the first message not taken is the parent
                    break
                rows.append(row)
                used += size
        return linked_messages(rows, parent)

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
            out.append(stored_message(r, parent))
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
            raise NotFound(say("chat.not_found", id=cid))
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
                raise NotFound(say("chat.message_not_found", message=cursor, id=cid))
            bmap = tree.BranchMap.load(conn, cid)
            walk = tree.walk_back(conn, cid, tree.path_point(conn, cid, bmap, cursor))
            next(walk)
            parent = next(walk, None)
        return stored_message(row, 0 if parent is None else int(parent["cursor"]))

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
            raise NotFound(say("chat.message_no_question", message=cursor, id=cid))
        return stored_message(found, parent)

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
            old_leaf = leaf
            leaf = tree.newest_leaf_below(conn, cid, bmap, cursor)
            conn.execute("UPDATE chats SET leaf_cursor = ? WHERE id = ?", (leaf, cid))
            # The part shared with the old path is kept; only the new part below it is read.
            fork = visible.shared_ancestor(conn, cid, bmap, old_leaf, leaf)
            shared = visible.count_up_to(conn, cid, old_leaf, visible.stored_count(conn, cid), fork)
            visible.store(conn, cid, shared + visible.count_between(conn, cid, bmap, leaf, fork))
        return leaf

    def off_path(self, chat_id: str, cursors: Sequence[int]) -> dict[int, OffPath]:
        """For each given message that is not on the active path: which version it is on
        (search hits say "version 2/3"); messages on the active path are left out."""
        cid = validate_chat_id(chat_id)
        out: dict[int, OffPath] = {}
        with self._db.reading() as conn:
            bmap = tree.BranchMap.load(conn, cid)
            if not bmap:
                return out  # one version only: everything is on the active path
            leaf = tree.active_leaf(conn, cid)
            active = tree.path_point(conn, cid, bmap, leaf)
            for cursor in cursors:
                try:
                    found = off_path(conn, cid, bmap, active, leaf, cursor)
                except NotFound:
                    continue
                if found is not None:
                    out[cursor] = found
        return out

    def viewed(self, chat_id: str, cursor: int) -> OffPath | None:
        """Where a view of the path through message `cursor` leaves the active path (with the
        leaf it shows: the newest below the message), or None when the message is on it.
        Reads only: the chat's current version stays what it is (decision 248)."""
        cid = validate_chat_id(chat_id)
        with self._db.reading() as conn:
            bmap = tree.BranchMap.load(conn, cid)
            leaf = tree.active_leaf(conn, cid)
            tree.branch_of(conn, cid, cursor)  # NotFound for a message the chat does not have
            if not bmap:
                return None
            active = tree.path_point(conn, cid, bmap, leaf)
            return off_path(conn, cid, bmap, active, leaf, cursor, with_leaf=True)

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
                raise NotFound(say("chat.not_found", id=cid))
            row = conn.execute(
                "SELECT COALESCE(MAX(cursor), 0) FROM messages WHERE chat_id = ?", (cid,)
            ).fetchone()
        return int(row[0])
