"""Per-chat LRU of activated Skills (SPEC S7.3): what `skill_load` loaded in earlier turns.

Later turns list these summaries in the system prompt so the model knows what it already
follows. Rows are written only for turns that were stored (a failed or stopped turn leaves
nothing), and a Skill whose SKILL.md hash changed, or that is disabled or gone, is not shown as
loaded (the caller compares with the live catalog).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from app.store.db import Database
from app.store.migrations import run_script
from app.store.timeutil import utc_now_iso

MAX_ACTIVE_PER_CHAT = 8

SCHEMA = """
CREATE TABLE skill_activations (
    chat_id      TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL,
    version      TEXT NOT NULL DEFAULT '',
    sha256       TEXT NOT NULL,
    used_at      TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    PRIMARY KEY (chat_id, name)
);
"""


def migrate(conn: sqlite3.Connection) -> None:
    """Schema migration (app/store/migrations.py): activations, evolution evidence, proposals."""
    from app.skills.evolution import migrate as migrate_evolution

    run_script(conn, SCHEMA)
    migrate_evolution(conn)


@dataclass(frozen=True)
class Activation:
    name: str
    description: str
    version: str
    sha256: str


class ActivationRepository:
    def __init__(self, db: Database, limit: int = MAX_ACTIVE_PER_CHAT) -> None:
        self._db = db
        self._limit = limit

    def record(self, chat_id: str, items: list[Activation]) -> None:
        """Mark `items` as most recently used (in order), then keep only the newest `limit`."""
        if not items:
            return
        with self._db.transaction() as conn:
            exists = conn.execute("SELECT 1 FROM chats WHERE id = ?", (chat_id,)).fetchone()
            if exists is None:
                return
            row = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM skill_activations WHERE chat_id = ?", (chat_id,)
            ).fetchone()
            seq = int(row[0])
            for item in items:
                seq += 1
                conn.execute(
                    "INSERT OR REPLACE INTO skill_activations"
                    " (chat_id, name, description, version, sha256, used_at, seq) VALUES (?,?,?,?,?,?,?)",
                    (chat_id, item.name, item.description, item.version, item.sha256, utc_now_iso(), seq),
                )
            conn.execute(
                "DELETE FROM skill_activations WHERE chat_id = ? AND seq NOT IN"
                " (SELECT seq FROM skill_activations WHERE chat_id = ? ORDER BY seq DESC LIMIT ?)",
                (chat_id, chat_id, self._limit),
            )

    def any(self, chat_id: str) -> bool:
        return bool(self._db.query("SELECT 1 FROM skill_activations WHERE chat_id = ? LIMIT 1", (chat_id,)))

    def list(self, chat_id: str) -> list[Activation]:
        """Most recent first."""
        rows = self._db.query(
            "SELECT name, description, version, sha256 FROM skill_activations"
            " WHERE chat_id = ? ORDER BY seq DESC",
            (chat_id,),
        )
        return [Activation(r["name"], r["description"], r["version"], r["sha256"]) for r in rows]
