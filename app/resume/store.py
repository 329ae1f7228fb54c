"""The checkpoints of waiting turns in SQLite (`turn_checkpoints`, `checkpoint_waits`).

A checkpoint is replaced whole in one transaction each time it changes; a body that no longer
reads (a damaged row, a newer version) is returned with the reason instead of failing the
others, so the caller can report it and leave it as it is.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from pydantic import ValidationError

from app.contracts.checkpoint import TurnCheckpoint
from app.store.db import Database
from app.store.timeutil import utc_now_iso


@dataclass(frozen=True)
class StoredCheckpoint:
    turn_id: str
    chat_id: str
    task_id: str | None
    approval_ids: tuple[str, ...]
    checkpoint: TurnCheckpoint | None  # None: the body does not read (`problem` says why)
    problem: str | None = None


class CheckpointStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def save(self, cp: TurnCheckpoint) -> None:
        body = cp.model_dump_json()
        now = utc_now_iso()
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO turn_checkpoints (turn_id, chat_id, task_id, body, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?) ON CONFLICT (turn_id) DO UPDATE SET body = excluded.body,"
                " updated_at = excluded.updated_at",
                (cp.turn_id, cp.chat_id, cp.task_id, body, now, now),
            )
            conn.execute("DELETE FROM checkpoint_waits WHERE turn_id = ?", (cp.turn_id,))
            conn.executemany(
                "INSERT OR REPLACE INTO checkpoint_waits (approval_id, turn_id) VALUES (?, ?)",
                [(w.approval_id, cp.turn_id) for w in cp.progress.waiting],
            )

    def drop(self, turn_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM turn_checkpoints WHERE turn_id = ?", (turn_id,))

    def drop_chat(self, chat_id: str) -> list[str]:
        """Forget the chat's checkpoints; the approval ids they waited on."""
        return self._drop_where("chat_id = ?", chat_id)

    def drop_task(self, task_id: str) -> list[str]:
        return self._drop_where("task_id = ?", task_id)

    def _drop_where(self, where: str, value: str) -> list[str]:
        with self._db.transaction() as conn:
            ids = [
                str(r[0])
                for r in conn.execute(
                    "SELECT w.approval_id FROM checkpoint_waits w JOIN turn_checkpoints c"
                    f" ON c.turn_id = w.turn_id WHERE c.{where}",
                    (value,),
                )
            ]
            conn.execute(f"DELETE FROM turn_checkpoints WHERE {where}", (value,))
        return ids

    def drop_stored(self) -> list[str]:
        """Forget checkpoints whose turn is in its chat already (the app ended between storing
        the turn and forgetting its checkpoint); the approval ids they waited on."""
        stored = "EXISTS (SELECT 1 FROM messages m WHERE m.chat_id = {t}.chat_id AND m.turn_id = {t}.turn_id)"
        with self._db.transaction() as conn:
            ids = [
                str(r[0])
                for r in conn.execute(
                    "SELECT w.approval_id FROM checkpoint_waits w JOIN turn_checkpoints c"
                    " ON c.turn_id = w.turn_id WHERE " + stored.format(t="c")
                )
            ]
            conn.execute("DELETE FROM turn_checkpoints WHERE " + stored.format(t="turn_checkpoints"))
        return ids

    def all(self) -> list[StoredCheckpoint]:
        return [self._read(r) for r in self._db.query(_SELECT + " ORDER BY c.created_at")]

    def by_approval(self, approval_id: str) -> StoredCheckpoint | None:
        rows = self._db.query(
            _SELECT + " WHERE c.turn_id = (SELECT turn_id FROM checkpoint_waits WHERE approval_id = ?)",
            (approval_id,),
        )
        return self._read(rows[0]) if rows else None

    def _read(self, row: sqlite3.Row) -> StoredCheckpoint:
        ids = tuple(i for i in str(row["approval_ids"] or "").split(",") if i)
        try:
            cp: TurnCheckpoint | None = TurnCheckpoint.model_validate_json(row["body"])
            problem = None
        except ValidationError as exc:
            cp, problem = None, f"the checkpoint does not read ({exc.error_count()} problems)"
        return StoredCheckpoint(row["turn_id"], row["chat_id"], row["task_id"], ids, cp, problem)


_SELECT = (
    "SELECT c.turn_id, c.chat_id, c.task_id, c.body,"
    " (SELECT group_concat(approval_id) FROM checkpoint_waits w WHERE w.turn_id = c.turn_id) AS approval_ids"
    " FROM turn_checkpoints c"
)
