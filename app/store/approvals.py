"""Standing "Always allow" grants (SPEC S4.3–4.4), implementing `app.tools.base.ApprovalLedger`.

A key is stored as a compact JSON array and matched exactly (same elements, same order): a
grant for `["git", "status"]` never covers `["git", "status", "-s"]`.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from typing import cast

from app.contracts.tools import Grant, GrantKey, GrantKind
from app.store.db import Database
from app.store.ids import new_id, validate_chat_id, validate_id
from app.store.timeutil import utc_now_iso

_KINDS = ("exec", "mcp", "skill_script", "web_host", "mcp_app")


def _key_json(key: GrantKey) -> str:
    if key.kind not in _KINDS:
        raise ValueError(f"unknown grant kind {key.kind!r}")
    if not key.key or not all(isinstance(part, str) for part in key.key):
        raise ValueError("a grant key must be a non-empty sequence of strings")
    return json.dumps(list(key.key), ensure_ascii=False, separators=(",", ":"))


class SqliteApprovalLedger:
    def __init__(self, db: Database) -> None:
        self._db = db

    def has(self, key: GrantKey) -> bool:
        """Only an enabled grant covers a call (an imported one waits for the user)."""
        rows = self._db.query(
            "SELECT 1 FROM approval_grants WHERE kind = ? AND key_json = ? AND workspace = ? AND enabled = 1",
            (key.kind, _key_json(key), key.workspace),
        )
        return bool(rows)

    def find(self, key: GrantKey) -> Grant | None:
        rows = self._db.query(
            "SELECT * FROM approval_grants WHERE kind = ? AND key_json = ? AND workspace = ?",
            (key.kind, _key_json(key), key.workspace),
        )
        return _grant(rows[0]) if rows else None

    def add(self, key: GrantKey, *, chat_id: str | None = None, enabled: bool = True) -> Grant:
        """Store the grant; adding an existing key returns the existing grant, enabled when this
        add is (the user's "Always" at a prompt enables an imported grant of the same key)."""
        key_json = _key_json(key)
        cid = None if chat_id is None else validate_chat_id(chat_id)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO approval_grants"
                " (id, kind, key_json, workspace, created_at, chat_id, enabled) VALUES (?,?,?,?,?,?,?)",
                (new_id(), key.kind, key_json, key.workspace, utc_now_iso(), cid, int(enabled)),
            )
            if enabled:
                conn.execute(
                    "UPDATE approval_grants SET enabled = 1"
                    " WHERE kind = ? AND key_json = ? AND workspace = ?",
                    (key.kind, key_json, key.workspace),
                )
            row = conn.execute(
                "SELECT * FROM approval_grants WHERE kind = ? AND key_json = ? AND workspace = ?",
                (key.kind, key_json, key.workspace),
            ).fetchone()
        return _grant(row)

    def list(self) -> builtins.list[Grant]:
        rows = self._db.query("SELECT * FROM approval_grants ORDER BY created_at, rowid")
        return [_grant(r) for r in rows]

    def enable(self, grant_id: str) -> bool:
        gid = validate_id(grant_id, "grant id")
        with self._db.transaction() as conn:
            return conn.execute("UPDATE approval_grants SET enabled = 1 WHERE id = ?", (gid,)).rowcount > 0

    def revoke(self, grant_id: str) -> bool:
        gid = validate_id(grant_id, "grant id")
        with self._db.transaction() as conn:
            return conn.execute("DELETE FROM approval_grants WHERE id = ?", (gid,)).rowcount > 0


def _grant(row: sqlite3.Row) -> Grant:
    return Grant(
        id=row["id"],
        kind=cast(GrantKind, row["kind"]),
        key=tuple(json.loads(row["key_json"])),
        workspace=row["workspace"],
        created_at=row["created_at"],
        chat_id=row["chat_id"],
        enabled=bool(row["enabled"]),
    )
