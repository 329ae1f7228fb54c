"""Chat branches (issue 11): a chat's messages form a tree; the chat shows, and the model sees,
only the active path from the first message to the active leaf.

Storage. Every message belongs to a *branch*: a chain of messages in cursor order, each the
parent of the next. Branch 0 is a chat's first line, so every chat written before branches
existed is branch 0 alone and the migration rewrites no rows. A new branch starts when a message
gets a second child (an edit or a regenerate): `chat_branches` records the parent message of the
branch's first message (`fork_cursor`, 0 for a new first message), the branch that parent is in
and the branch's first cursor. `chats.leaf_cursor` is the active leaf (NULL: the newest message,
which is what a never-branched chat shows).

Why this shape: the active path read from the leaf backwards is one index range scan per branch
it crosses (`messages(chat_id, branch, cursor)`), stopping after a page, so a 100,000-message chat
opens without reading its older rows, and a chat without branches pays nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from app.contracts.errors import say
from app.store.errors import NotFound

ROOT = 0  # the parent "cursor" of a first message
NO_BRANCH = -1  # the parent branch of a branch that starts a new first message
CHAIN_PREFETCH = 256  # ancestors read with a branch (a page of 200 messages crosses fewer)

SCHEMA = """
ALTER TABLE messages ADD COLUMN branch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chats ADD COLUMN leaf_cursor INTEGER;
CREATE TABLE chat_branches (
    chat_id        TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    branch         INTEGER NOT NULL CHECK (branch > 0),
    parent_branch  INTEGER NOT NULL,
    fork_cursor    INTEGER NOT NULL,
    first_cursor   INTEGER NOT NULL,
    PRIMARY KEY (chat_id, branch)
);
CREATE INDEX chat_branches_fork ON chat_branches(chat_id, fork_cursor);
CREATE INDEX messages_branch ON messages(chat_id, branch, cursor) WHERE branch != 0;
"""
# The index is partial so the migration of a large existing database builds an empty index
# (instant) instead of one over every message; branch 0 is read through the (chat_id, cursor)
# unique index, which skips the few rows of other branches.


class BranchRow(NamedTuple):
    branch: int
    parent_branch: int
    fork_cursor: int
    first_cursor: int


class BranchMap:
    """The branches of one chat, looked up as a read needs them (by primary key and by fork:
    opening a page of a chat with 1,000 branches touches only the few dozen it crosses). Use
    it inside one `reading()`/`transaction()` block; it memoises what it read."""

    def __init__(self, conn: sqlite3.Connection, chat_id: str) -> None:
        self._conn = conn
        self._chat = chat_id
        self._rows: dict[int, BranchRow | None] = {}
        self._forks: dict[int, list[int]] = {}
        self._any: bool | None = None
        self._children: dict[int, list[BranchRow]] | None = None

    @classmethod
    def load(cls, conn: sqlite3.Connection, chat_id: str) -> BranchMap:
        return cls(conn, chat_id)

    def __bool__(self) -> bool:
        if self._any is None:
            self._any = bool(
                self._conn.execute(
                    "SELECT 1 FROM chat_branches WHERE chat_id = ? LIMIT 1", (self._chat,)
                ).fetchone()
            )
        return self._any

    def get(self, branch: int) -> BranchRow | None:
        if branch not in self._rows:
            self._prefetch_chain(branch)
        return self._rows.get(branch)

    def _prefetch_chain(self, branch: int) -> None:
        """The branch and up to CHAIN_PREFETCH of its ancestors in one statement: a page of a
        path crossing many branches asks for them one after the other."""
        rows = self._conn.execute(
            "WITH RECURSIVE ch(b, n) AS (SELECT ?, 0 UNION ALL SELECT cb.parent_branch, ch.n + 1"
            " FROM chat_branches cb JOIN ch ON cb.chat_id = ? AND cb.branch = ch.b"
            " WHERE cb.fork_cursor != 0 AND ch.n < ?)"
            " SELECT cb.branch, cb.parent_branch, cb.fork_cursor, cb.first_cursor"
            " FROM ch JOIN chat_branches cb ON cb.chat_id = ? AND cb.branch = ch.b",
            (branch, self._chat, CHAIN_PREFETCH, self._chat),
        ).fetchall()
        for r in map(BranchRow._make, rows):
            self._rows[r.branch] = r
        self._rows.setdefault(branch, None)

    def next_id(self) -> int:
        row = self._conn.execute(
            "SELECT MAX(branch) FROM chat_branches WHERE chat_id = ?", (self._chat,)
        ).fetchone()
        return int(row[0] or 0) + 1

    def forked_at(self, cursor: int) -> list[int]:
        """First cursors of the branches whose first message is a child of `cursor`."""
        if cursor not in self._forks:
            rows = self._conn.execute(
                "SELECT first_cursor FROM chat_branches WHERE chat_id = ? AND fork_cursor = ?",
                (self._chat, cursor),
            ).fetchall()
            self._forks[cursor] = [int(r[0]) for r in rows]
        return self._forks[cursor]

    def forks_between(self, low: int, high: int) -> dict[int, list[int]]:
        """`forked_at` for every cursor in [low, high] that has forks, in one query."""
        rows = self._conn.execute(
            "SELECT fork_cursor, first_cursor FROM chat_branches"
            " WHERE chat_id = ? AND fork_cursor BETWEEN ? AND ?",
            (self._chat, low, high),
        ).fetchall()
        found: dict[int, list[int]] = {}
        for fork, first in rows:
            found.setdefault(int(fork), []).append(int(first))
        return found

    def steps(self, branch: int, upto: int) -> Iterator[tuple[int, int]]:
        """(branch, highest cursor on the path) from `branch` up to the first message, lazily:
        a reader that stops after a page never follows the rest."""
        yield branch, upto
        row = self.get(branch) if branch else None
        while row is not None and row.fork_cursor != ROOT:
            yield row.parent_branch, row.fork_cursor
            row = self.get(row.parent_branch) if row.parent_branch else None

    def subtree(self, branch: int, start: int) -> list[int]:
        """The branches holding `start` (in `branch`) and everything below it."""
        if self._children is None:
            self._children = {}
            rows = self._conn.execute(
                "SELECT branch, parent_branch, fork_cursor, first_cursor FROM chat_branches"
                " WHERE chat_id = ?",
                (self._chat,),
            ).fetchall()
            for r in map(BranchRow._make, rows):
                self._children.setdefault(r.parent_branch, []).append(r)
        out, todo = [], [(branch, start)]
        while todo:
            b, s = todo.pop()
            out.append(b)
            todo.extend((c.branch, c.first_cursor) for c in self._children.get(b, []) if c.fork_cursor >= s)
        return out


class PathPoint:
    """The path from the first message down to one message (a leaf, usually)."""

    def __init__(self, bmap: BranchMap | None = None, branch: int = 0, upto: int = ROOT) -> None:
        self._bmap = bmap
        self._start = (branch, upto)
        self._chain: dict[int, int] | None = None  # branch -> highest cursor on the path

    def steps(self) -> Iterator[tuple[int, int]]:
        if self._bmap is None or self._start[1] == ROOT:
            return iter(())
        return self._bmap.steps(*self._start)

    def contains(self, branch: int, cursor: int) -> bool:
        if self._chain is None:
            self._chain = dict(self.steps())  # a path crosses each branch once
        upto = self._chain.get(branch)
        return upto is not None and cursor <= upto


def _branch_filter(branch: int) -> str:
    # The literal `branch != 0` lets SQLite use the partial index for other branches.
    return "branch = 0" if branch == 0 else "branch = ? AND branch != 0"


def _branch_args(branch: int) -> tuple[int, ...]:
    return () if branch == 0 else (branch,)


def branch_of(conn: sqlite3.Connection, chat_id: str, cursor: int) -> int:
    row = conn.execute(
        "SELECT branch FROM messages WHERE chat_id = ? AND cursor = ?", (chat_id, cursor)
    ).fetchone()
    if row is None:
        raise NotFound(say("chat.message_not_found", message=cursor, id=chat_id))
    return int(row[0])


def active_leaf(conn: sqlite3.Connection, chat_id: str) -> int:
    """The active leaf's cursor (0 for a chat without messages). NotFound for no chat."""
    row = conn.execute("SELECT leaf_cursor FROM chats WHERE id = ?", (chat_id,)).fetchone()
    if row is None:
        raise NotFound(say("chat.not_found", id=chat_id))
    if row[0] is not None:
        return int(row[0])
    newest = conn.execute(
        "SELECT COALESCE(MAX(cursor), 0) FROM messages WHERE chat_id = ?", (chat_id,)
    ).fetchone()
    return int(newest[0])


def path_point(conn: sqlite3.Connection, chat_id: str, bmap: BranchMap, leaf: int) -> PathPoint:
    if leaf == ROOT:
        return PathPoint()
    return PathPoint(bmap, branch_of(conn, chat_id, leaf), leaf)


def walk_back(
    conn: sqlite3.Connection, chat_id: str, point: PathPoint, *, min_cursor: int = 0
) -> Iterator[sqlite3.Row]:
    """The path's messages newest first (lazily: stop iterating and no more rows are read),
    down to `min_cursor`. The caller holds the connection for the whole iteration."""
    for branch, upto in point.steps():
        if upto < min_cursor:
            return
        sql = (
            f"SELECT * FROM messages WHERE chat_id = ? AND {_branch_filter(branch)}"
            " AND cursor <= ? AND cursor >= ? ORDER BY cursor DESC"
        )
        yield from conn.execute(sql, (chat_id, *_branch_args(branch), upto, min_cursor))


def walk_forward(
    conn: sqlite3.Connection, chat_id: str, point: PathPoint, *, min_cursor: int, limit: int
) -> list[sqlite3.Row]:
    """The path's first `limit` messages from `min_cursor` on, oldest first (paging forwards
    from a summary's cursor reads only the oldest part of a long path)."""
    steps = []
    for branch, upto in point.steps():
        if upto < min_cursor:
            break
        steps.append((branch, upto))
    rows: list[sqlite3.Row] = []
    for branch, upto in reversed(steps):  # a parent branch's part comes before its child's
        sql = (
            f"SELECT * FROM messages WHERE chat_id = ? AND {_branch_filter(branch)}"
            " AND cursor <= ? AND cursor >= ? ORDER BY cursor LIMIT ?"
        )
        args = (chat_id, *_branch_args(branch), upto, min_cursor, limit - len(rows))
        rows.extend(conn.execute(sql, args).fetchall())
        if len(rows) >= limit:
            break
    return rows


# A message's size in the model's context: its text plus each tool call's name and arguments
# (the same measure as app/memory/transcript.message_chars).
_CONTEXT_CHARS = (
    "length(content) + CASE tool_calls WHEN '[]' THEN 0 ELSE (SELECT COALESCE(SUM("
    "length(json_extract(value, '$.name')) + length(json_extract(value, '$.arguments'))), 0)"
    " FROM json_each(tool_calls)) END"
)


def path_chars(conn: sqlite3.Connection, chat_id: str, point: PathPoint, *, min_cursor: int) -> int:
    """The context characters of the path's messages from `min_cursor` on: one aggregate per
    branch crossed, computed inside SQLite (no message becomes a Python object)."""
    total = 0
    for branch, upto in point.steps():
        if upto < min_cursor:
            break
        sql = (
            f"SELECT COALESCE(SUM({_CONTEXT_CHARS}), 0) FROM messages WHERE chat_id = ?"
            f" AND {_branch_filter(branch)} AND cursor <= ? AND cursor >= ?"
        )
        total += int(conn.execute(sql, (chat_id, *_branch_args(branch), upto, min_cursor)).fetchone()[0])
    return total


def successor(conn: sqlite3.Connection, chat_id: str, branch: int, cursor: int) -> int | None:
    """The next message of `branch` after `cursor` (its in-branch child), if any."""
    row = conn.execute(
        f"SELECT MIN(cursor) FROM messages WHERE chat_id = ? AND {_branch_filter(branch)} AND cursor > ?",
        (chat_id, *_branch_args(branch), cursor),
    ).fetchone()
    return None if row[0] is None else int(row[0])


def children(conn: sqlite3.Connection, chat_id: str, bmap: BranchMap, parent: int) -> list[int]:
    """Cursors of the children of message `parent` (ROOT: the first messages), oldest first."""
    if parent == ROOT:
        first = successor(conn, chat_id, 0, 0)
    else:
        first = successor(conn, chat_id, branch_of(conn, chat_id, parent), parent)
    return sorted(([] if first is None else [first]) + bmap.forked_at(parent))


def branch_for_child(
    conn: sqlite3.Connection, chat_id: str, bmap: BranchMap, parent: int, first_cursor: int
) -> int:
    """The branch a new child of `parent` goes into: the parent's own while it has no child,
    else a new branch (recorded here, inside the caller's transaction)."""
    if parent == ROOT:
        if successor(conn, chat_id, 0, 0) is None and not bmap:
            return 0
        parent_branch = NO_BRANCH
    else:
        parent_branch = branch_of(conn, chat_id, parent)
        if successor(conn, chat_id, parent_branch, parent) is None:
            return parent_branch
    branch = bmap.next_id()
    conn.execute(
        "INSERT INTO chat_branches (chat_id, branch, parent_branch, fork_cursor, first_cursor)"
        " VALUES (?,?,?,?,?)",
        (chat_id, branch, parent_branch, parent, first_cursor),
    )
    return branch


def newest_leaf_below(conn: sqlite3.Connection, chat_id: str, bmap: BranchMap, cursor: int) -> int:
    """The newest message in the subtree of `cursor`: always a leaf (its children would be
    newer), and the one a switch to `cursor` selects."""
    branch = branch_of(conn, chat_id, cursor)
    best = cursor
    for b in bmap.subtree(branch, cursor):
        row = conn.execute(
            f"SELECT MAX(cursor) FROM messages WHERE chat_id = ? AND {_branch_filter(b)}",
            (chat_id, *_branch_args(b)),
        ).fetchone()
        if row[0] is not None:
            best = max(best, int(row[0]))
    return best


def sibling_map(
    conn: sqlite3.Connection, chat_id: str, bmap: BranchMap, rows: Sequence[sqlite3.Row], oldest_parent: int
) -> dict[int, list[int]]:
    """Siblings of each row of a path read newest first (each row's parent is the next row,
    `oldest_parent` for the last): the children of its parent, oldest first, for rows whose
    parent has more than one child. Two statements whatever the page: the forks in the page's
    range, then the parents' own continuations where the path left through a new branch."""
    out: dict[int, list[int]] = {}
    if not rows or not bmap:
        return out
    parents = [int(rows[i + 1]["cursor"]) if i + 1 < len(rows) else oldest_parent for i in range(len(rows))]
    forks = bmap.forks_between(min(parents), max(parents))
    branch_at = {int(r["cursor"]): int(r["branch"]) for r in rows}
    stems: list[tuple[int, int]] = []  # (branch of the parent, parent) whose continuation we need
    for r, parent in zip(rows, parents, strict=True):
        own = bmap.get(int(r["branch"])) if parent in forks else None
        if own is not None and own.first_cursor == int(r["cursor"]):
            stem = 0 if parent == ROOT else branch_at.get(parent)
            stems.append((branch_of(conn, chat_id, parent) if stem is None else stem, parent))
    continuation = successors(conn, chat_id, stems)
    for r, parent in zip(rows, parents, strict=True):
        if parent not in forks:
            continue
        cursor = int(r["cursor"])
        first = continuation.get(parent, cursor)
        out[cursor] = sorted(([] if first is None else [first]) + forks[parent])
    return out


def successors(
    conn: sqlite3.Connection, chat_id: str, pairs: Sequence[tuple[int, int]]
) -> dict[int, int | None]:
    """`successor` for many (branch, cursor) pairs in one statement."""
    if not pairs:
        return {}
    values = ",".join("(?,?)" for _ in pairs)
    sql = (
        f"WITH q(b, c) AS (VALUES {values}) SELECT q.c, CASE WHEN q.b = 0"
        " THEN (SELECT MIN(cursor) FROM messages m WHERE m.chat_id = ? AND m.branch = 0 AND m.cursor > q.c)"
        " ELSE (SELECT MIN(cursor) FROM messages m"
        " WHERE m.chat_id = ? AND m.branch = q.b AND m.branch != 0 AND m.cursor > q.c) END FROM q"
    )
    args = [x for pair in pairs for x in pair]
    return {int(c): (None if n is None else int(n)) for c, n in conn.execute(sql, (*args, chat_id, chat_id))}
