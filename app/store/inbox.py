"""The Inbox's table (issue 35): every question a run asks, readable and answerable by any
process on this database (the CLI beside `serve` or the desktop).

The first answer wins: `claim` changes a row only while it is still "pending", in one UPDATE, so
two surfaces (or two processes) answering at once never both count. The process whose run waits
(`owner_pid`/`owner_start`) reads its own pending rows back to learn of answers given elsewhere
(app/api/inbox.py)."""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.contracts.inbox import InboxItem, InboxStatus, InboxSurface
from app.store.db import Database
from app.store.inbox_schema import SCHEMA
from app.store.timeutil import utc_now_iso

__all__ = ["SCHEMA", "Claim", "InboxRow", "InboxStore"]


KEEP_ANSWERED = 200  # answered rows kept for "answered by …" views; older ones are dropped


@dataclass(frozen=True)
class Claim:
    """What `claim` found: `won` — this answer counts; otherwise `row` is the item as it is
    (None: no such item)."""

    won: bool
    row: InboxRow | None


@dataclass(frozen=True)
class InboxRow:
    item: InboxItem  # status, answer and answered_by as stored
    form: dict[str, Any]  # an elicitation's JSON schema ({} for other kinds)
    fields: dict[str, Any]  # the accepted form's values
    owner_pid: int | None
    owner_start: str | None


class InboxStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(
        self, item: InboxItem, *, form: dict[str, Any] | None, owner_pid: int, owner_start: str | None
    ) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO inbox_items (id, kind, chat_id, item_json, form_json, created_at,"
                " status, owner_pid, owner_start, resumable) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    item.id, item.kind, item.chat_id, item.model_dump_json(), json.dumps(form or {}),
                    item.created_at, item.status, owner_pid, owner_start, int(item.resumable),
                ),
            )  # fmt: skip
            conn.execute(
                "DELETE FROM inbox_items WHERE status != 'pending' AND id NOT IN"
                " (SELECT id FROM inbox_items WHERE status != 'pending' ORDER BY answered_at DESC LIMIT ?)",
                (KEEP_ANSWERED,),
            )

    def get(self, item_id: str) -> InboxRow | None:
        rows = self._db.query("SELECT * FROM inbox_items WHERE id = ?", (item_id,))
        return _row(rows[0]) if rows else None

    def list(self, *, include_answered: bool) -> builtins.list[InboxRow]:
        where = "" if include_answered else " WHERE status = 'pending'"
        rows = self._db.query(f"SELECT * FROM inbox_items{where} ORDER BY created_at, rowid")
        return [_row(r) for r in rows]

    def pending_count(self) -> int:
        rows = self._db.query("SELECT count(*) FROM inbox_items WHERE status = 'pending'")
        return int(rows[0][0])

    def claim(
        self,
        item_id: str,
        *,
        answer: str,
        fields: dict[str, Any] | None,
        by: InboxSurface | None,
        status: InboxStatus = "answered",
    ) -> Claim:
        """Record the answer if the item still waits (first answer wins)."""
        with self._db.transaction() as conn:
            changed = conn.execute(
                "UPDATE inbox_items SET status = ?, answer = ?, answer_json = ?, answered_by = ?,"
                " answered_at = ? WHERE id = ? AND status = 'pending'",
                (status, answer, json.dumps(fields or {}), by, utc_now_iso(), item_id),
            ).rowcount
            row = conn.execute("SELECT * FROM inbox_items WHERE id = ?", (item_id,)).fetchone()
        return Claim(won=changed > 0, row=_row(row) if row is not None else None)

    def answered_among(self, ids: Iterable[str]) -> builtins.list[InboxRow]:
        """The rows of `ids` that are no longer pending (the owner's cheap look for answers)."""
        wanted = list(ids)
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        rows = self._db.query(
            f"SELECT * FROM inbox_items WHERE status != 'pending' AND id IN ({marks})", tuple(wanted)
        )
        return [_row(r) for r in rows]

    def cancel_orphans(self, alive: Callable[[int, str | None], bool]) -> builtins.list[str]:
        """Pending items whose waiting process is gone (quit, crash) and that nothing can resume:
        marked "cancelled", so no surface offers an answer that would reach nobody."""
        rows = self._db.query(
            "SELECT id, owner_pid, owner_start FROM inbox_items WHERE status = 'pending'"
            " AND resumable = 0 AND owner_pid IS NOT NULL"
        )
        gone = [r["id"] for r in rows if not alive(int(r["owner_pid"]), r["owner_start"])]
        if not gone:
            return []
        with self._db.transaction() as conn:
            for item_id in gone:
                conn.execute(
                    "UPDATE inbox_items SET status = 'cancelled', answered_at = ?"
                    " WHERE id = ? AND status = 'pending'",
                    (utc_now_iso(), item_id),
                )
        return gone

    def delete_ids(self, ids: Iterable[str]) -> None:
        with self._db.transaction() as conn:
            conn.executemany("DELETE FROM inbox_items WHERE id = ?", [(i,) for i in ids])

    def delete_chat(self, chat_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM inbox_items WHERE chat_id = ?", (chat_id,))


def _row(row: sqlite3.Row) -> InboxRow:
    item = InboxItem.model_validate_json(row["item_json"]).model_copy(
        update={
            "status": row["status"],
            "answer": row["answer"],
            "answered_by": row["answered_by"],
            "resumable": bool(row["resumable"]),
        }
    )
    return InboxRow(
        item=item,
        form=json.loads(row["form_json"]),
        fields=json.loads(row["answer_json"]),
        owner_pid=row["owner_pid"],
        owner_start=row["owner_start"],
    )
