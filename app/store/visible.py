"""How many messages the user sees on a chat's active path (the chat list's "N messages").

The UI shows one entry per user message and one per answer: a turn's assistant rows, its tool
calls and their results are one answer (frontend/src/model/transcript.ts); system rows and
other branches' versions are not shown. So the count of a path is its user rows plus the turns
that have an assistant row on it (a turn's rows are all in one branch, so per-branch sums add
up). Decision 245.

It is stored in `chat_activity.visible_count` and kept by the repository, which knows where
the active leaf moves (a trigger cannot follow a path: SQLite triggers take no WITH clause):
a turn appended at the leaf adds its own entries; a regenerate, an edit or a branch switch
counts only what differs from the old path when it can (the part below the fork point), else
the path once, one aggregate per branch it crosses.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from app.contracts.messages import Message
from app.store import branches as tree

VISIBLE_V1 = "ALTER TABLE chat_activity ADD COLUMN visible_count INTEGER"

# Chats without branches: every row is on the path, so one grouped scan counts them all.
_BACKFILL_LINEAR = """
INSERT INTO chat_activity (chat_id, message_count, last_message_at, visible_count)
SELECT m.chat_id, 0, NULL,
       SUM(m.role = 'user') + COUNT(DISTINCT CASE WHEN m.role = 'assistant' THEN m.turn_id END)
FROM messages m
WHERE NOT EXISTS (SELECT 1 FROM chat_branches b WHERE b.chat_id = m.chat_id)
GROUP BY m.chat_id
ON CONFLICT (chat_id) DO UPDATE SET visible_count = excluded.visible_count
"""


def batch_entries(messages: Sequence[Message]) -> int:
    """Entries one turn's messages add at the end of a path: its user messages and one answer."""
    users = sum(1 for m in messages if m.role == "user")
    return users + (1 if any(m.role == "assistant" for m in messages) else 0)


def _segment_sql(branch: int, select: str) -> str:
    where = "branch = 0" if branch == 0 else "branch = ? AND branch != 0"
    return f"SELECT {select} FROM messages WHERE chat_id = ? AND {where} AND cursor <= ? AND cursor >= ?"


def _args(chat_id: str, branch: int, upto: int, low: int) -> tuple[object, ...]:
    return (chat_id, upto, low) if branch == 0 else (chat_id, branch, upto, low)


def path_count(conn: sqlite3.Connection, chat_id: str, leaf: int) -> int:
    """The visible messages on the path from the first message to `leaf` (0: none)."""
    if leaf == tree.ROOT:
        return 0
    bmap = tree.BranchMap.load(conn, chat_id)
    total = 0
    select = "COALESCE(SUM(role = 'user'), 0) + COUNT(DISTINCT CASE WHEN role = 'assistant' THEN turn_id END)"
    for branch, upto in tree.path_point(conn, chat_id, bmap, leaf).steps():
        row = conn.execute(_segment_sql(branch, select), _args(chat_id, branch, upto, 0)).fetchone()
        total += int(row[0])
    return total


def _below(conn: sqlite3.Connection, chat_id: str, point: tree.PathPoint, after: int) -> tuple[int, set[str]]:
    """The user rows and the answering turns on `point`'s path whose cursor is above `after`
    (on a path cursors grow from the first message down, so: the part below message `after`)."""
    users, turns = 0, set[str]()
    for branch, upto in point.steps():
        if upto <= after:
            break
        got = conn.execute(
            _segment_sql(branch, "role, turn_id") + " AND role IN ('user', 'assistant')",
            _args(chat_id, branch, upto, after + 1),
        ).fetchall()
        users += sum(1 for r in got if r[0] == "user")
        turns.update(str(r[1]) for r in got if r[0] == "assistant")
    return users, turns


def _answer_turn_at(conn: sqlite3.Connection, chat_id: str, cursor: int) -> tuple[int, str | None] | None:
    """(branch, the turn whose answer message `cursor` is part of; None for a user message)."""
    row = conn.execute(
        "SELECT branch, role, turn_id FROM messages WHERE chat_id = ? AND cursor = ?", (chat_id, cursor)
    ).fetchone()
    if row is None:
        return None
    return int(row[0]), (None if row[1] == "user" else str(row[2]))


def count_up_to(conn: sqlite3.Connection, chat_id: str, old_leaf: int, old_count: int | None, at: int) -> int:
    """The visible messages on the path to `at`, given the count of the path to `old_leaf`:
    when `at` is on that path, the old count minus what lies below `at` (a regenerate or an
    edit near the end reads a few rows); else the path to `at` counted afresh."""
    if at == tree.ROOT:
        return 0
    if old_count is None or old_leaf == tree.ROOT:
        return path_count(conn, chat_id, at)
    if at == old_leaf:
        return old_count
    point = tree.path_point(conn, chat_id, tree.BranchMap.load(conn, chat_id), old_leaf)
    found = _answer_turn_at(conn, chat_id, at)
    if found is None or not point.contains(found[0], at):
        return path_count(conn, chat_id, at)
    users, turns = _below(conn, chat_id, point, at)
    turns.discard(found[1] or "")  # `at` is inside its turn's answer: that answer stays
    return old_count - users - len(turns)


def count_between(conn: sqlite3.Connection, chat_id: str, bmap: tree.BranchMap, leaf: int, fork: int) -> int:
    """The visible messages on the path to `leaf` below its ancestor `fork`."""
    users, turns = _below(conn, chat_id, tree.path_point(conn, chat_id, bmap, leaf), fork)
    found = _answer_turn_at(conn, chat_id, fork) if fork != tree.ROOT else None
    if found is not None:
        turns.discard(found[1] or "")  # counted with the part above
    return users + len(turns)


def shared_ancestor(
    conn: sqlite3.Connection, chat_id: str, bmap: tree.BranchMap, one: int, other: int
) -> int:
    """The deepest message on both the path to `one` and the path to `other` (ROOT: none)."""
    if one == tree.ROOT or other == tree.ROOT:
        return tree.ROOT
    chain = dict(tree.path_point(conn, chat_id, bmap, one).steps())
    for branch, upto in tree.path_point(conn, chat_id, bmap, other).steps():
        if branch in chain:  # both paths run through this branch, up to the lower of the two
            return min(upto, chain[branch])
    return tree.ROOT


def stored_count(conn: sqlite3.Connection, chat_id: str) -> int | None:
    row = conn.execute("SELECT visible_count FROM chat_activity WHERE chat_id = ?", (chat_id,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def store(conn: sqlite3.Connection, chat_id: str, count: int) -> None:
    conn.execute(
        "INSERT INTO chat_activity (chat_id, message_count, last_message_at, visible_count)"
        " VALUES (?, 0, NULL, ?)"
        " ON CONFLICT (chat_id) DO UPDATE SET visible_count = excluded.visible_count",
        (chat_id, count),
    )


def migrate_visible_count(conn: sqlite3.Connection) -> None:
    """Add the column and count every existing chat's active path: chats without branches in
    one grouped scan, the others one path each."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(chat_activity)")}
    if "visible_count" in columns:  # converted from the old single-list layout: ran already
        return
    conn.execute(VISIBLE_V1)
    conn.execute(_BACKFILL_LINEAR)
    for (chat_id,) in conn.execute("SELECT DISTINCT chat_id FROM chat_branches").fetchall():
        store(conn, chat_id, path_count(conn, chat_id, tree.active_leaf(conn, chat_id)))
