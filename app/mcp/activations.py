"""Per-chat activated MCP tools: an LRU set (capacity 50) in SQLite, so later turns and
restarts offer the tools directly (SPEC S6.5)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from app.store.db import Database
from app.store.migrations import run_script

CAPACITY = 50

SCHEMA = """
CREATE TABLE mcp_activations (
    chat_id  TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    server   TEXT NOT NULL,
    tool     TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    PRIMARY KEY (chat_id, server, tool)
);
CREATE INDEX mcp_activations_lru ON mcp_activations(chat_id, seq);
"""


def migrate(conn: sqlite3.Connection) -> None:
    """Schema migration (appended to app/store/migrations.py MIGRATIONS)."""
    run_script(conn, SCHEMA)


class ActivationStore:
    def __init__(self, db: Database, capacity: int = CAPACITY) -> None:
        self._db = db
        self._capacity = capacity

    def list(self, chat_id: str) -> list[tuple[str, str]]:
        """(server, tool) pairs, most recently used first."""
        rows = self._db.query(
            "SELECT server, tool FROM mcp_activations WHERE chat_id = ? ORDER BY seq DESC", (chat_id,)
        )
        return [(str(r["server"]), str(r["tool"])) for r in rows]

    def touch(self, chat_id: str, pairs: Sequence[tuple[str, str]]) -> None:
        """Activate (or mark as just used) the pairs; the least recently used beyond the
        capacity drop out. The first pair ends up most recent."""
        if not pairs:
            return
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM mcp_activations WHERE chat_id = ?", (chat_id,)
            ).fetchone()
            seq = int(row[0])
            for server, tool in reversed(list(pairs)):
                seq += 1
                conn.execute(
                    "INSERT INTO mcp_activations(chat_id, server, tool, seq) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(chat_id, server, tool) DO UPDATE SET seq = excluded.seq",
                    (chat_id, server, tool, seq),
                )
            conn.execute(
                "DELETE FROM mcp_activations WHERE chat_id = ? AND seq NOT IN "
                "(SELECT seq FROM mcp_activations WHERE chat_id = ? ORDER BY seq DESC LIMIT ?)",
                (chat_id, chat_id, self._capacity),
            )

    def forget_server(self, server: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM mcp_activations WHERE server = ?", (server,))
