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
    """Stored per chat. A chat that is not stored yet (`cashcode ask` reserves its chat and
    writes it with the first turn) keeps its activations in memory until `flush` after the
    turn is stored: the row would point at a chat that does not exist (a foreign key)."""

    def __init__(self, db: Database, capacity: int = CAPACITY) -> None:
        self._db = db
        self._capacity = capacity
        self._pending: dict[str, list[tuple[str, str]]] = {}  # most recent first

    def list(self, chat_id: str) -> list[tuple[str, str]]:
        """(server, tool) pairs, most recently used first."""
        rows = self._db.query(
            "SELECT server, tool FROM mcp_activations WHERE chat_id = ? ORDER BY seq DESC", (chat_id,)
        )
        stored = [(str(r["server"]), str(r["tool"])) for r in rows]
        pending = self._pending.get(chat_id, [])
        return [*pending, *(p for p in stored if p not in pending)][: self._capacity]

    def flush(self, chat_id: str) -> None:
        """Store the activations kept in memory for `chat_id`, now that the chat is stored."""
        pending = self._pending.pop(chat_id, None)
        if pending:
            self.touch(chat_id, pending)

    def touch(self, chat_id: str, pairs: Sequence[tuple[str, str]]) -> None:
        """Activate (or mark as just used) the pairs; the least recently used beyond the
        capacity drop out. The first pair ends up most recent."""
        if not pairs:
            return
        if not self._db.query("SELECT 1 FROM chats WHERE id = ?", (chat_id,)):
            kept = [p for p in self._pending.get(chat_id, []) if p not in pairs]
            self._pending[chat_id] = [*dict.fromkeys(pairs), *kept][: self._capacity]
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
        for chat_id, pairs in self._pending.items():
            self._pending[chat_id] = [p for p in pairs if p[0] != server]
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM mcp_activations WHERE server = ?", (server,))
