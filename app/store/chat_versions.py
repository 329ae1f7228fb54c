"""Where a message stands among the versions of a chat (issue 25 item 7): whether it is on the
active path, and if not, which version it is on — the version of the message where its path
leaves the active one (a regenerated answer, an edited question), counted as the ‹ n/m › arrows
count it (the children of that message's parent, oldest first). Decision 246.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from app.store import branches as tree
from app.store.visible import shared_ancestor


@dataclass(frozen=True)
class OffPath:
    cursor: int  # the first message of the path that is not on the active path
    index: int  # its place among its versions, 1-based
    count: int  # how many versions that message has
    leaf: int  # the leaf a view of that path shows (the newest below the message; `with_leaf`)


def off_path(
    conn: sqlite3.Connection,
    chat_id: str,
    bmap: tree.BranchMap,
    active: tree.PathPoint,
    active_leaf: int,
    cursor: int,
    *,
    with_leaf: bool = False,
) -> OffPath | None:
    """None when message `cursor` is on the active path, else where its path leaves it.
    `with_leaf`: also find the leaf a view shows (reads every branch below; search skips it)."""
    if active.contains(tree.branch_of(conn, chat_id, cursor), cursor):
        return None
    fork = shared_ancestor(conn, chat_id, bmap, active_leaf, cursor)
    point = tree.path_point(conn, chat_id, bmap, cursor)
    first = tree.walk_forward(conn, chat_id, point, min_cursor=fork + 1, limit=1)
    leaving = int(first[0]["cursor"]) if first else cursor
    versions = tree.children(conn, chat_id, bmap, fork)
    index = versions.index(leaving) + 1 if leaving in versions else 1
    leaf = tree.newest_leaf_below(conn, chat_id, bmap, cursor) if with_leaf else cursor
    return OffPath(leaving, index, max(len(versions), 1), leaf)
