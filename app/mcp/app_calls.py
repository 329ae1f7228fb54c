"""The calls of tools that have an MCP App, kept per chat so that reopening the chat renders
each App again with the tool input and result it was shown with (issue 37 item 3).

A row per (chat, call id): the server, the tool, its `ui://` page, the arguments and the whole
tool result as JSON (redacted like the text the model saw). A chat that is not stored yet
(`cashcode ask` reserves its chat and writes it with the first turn) keeps its rows in memory
until `flush`, as app/mcp/activations.py does.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from app.store.db import Database
from app.store.migrations import run_script

MAX_RESULT_CHARS = 1_000_000  # a larger result keeps its text only (the App gets that)

SCHEMA = """
CREATE TABLE mcp_app_calls (
    chat_id    TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    call_id    TEXT NOT NULL,
    turn_id    TEXT NOT NULL,
    server     TEXT NOT NULL,
    tool       TEXT NOT NULL,
    uri        TEXT NOT NULL,
    arguments  TEXT NOT NULL,
    result     TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    PRIMARY KEY (chat_id, call_id)
);
"""


def migrate(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA)


@dataclass(frozen=True)
class AppCall:
    chat_id: str
    call_id: str
    turn_id: str
    server: str
    tool: str
    uri: str
    arguments: dict[str, Any]
    result: dict[str, Any]


def kept_result(raw: dict[str, Any] | None, text: str, ok: bool) -> dict[str, Any]:
    """The result an App is given: the server's whole result, or (too large, or missing) its
    text as one text block."""
    if raw is not None and len(json.dumps(raw, ensure_ascii=False)) <= MAX_RESULT_CHARS:
        return raw
    return {"content": [{"type": "text", "text": text[:MAX_RESULT_CHARS]}], "isError": not ok}


class AppCallStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._pending: dict[str, list[AppCall]] = {}

    def record(self, call: AppCall) -> None:
        if not self._db.query("SELECT 1 FROM chats WHERE id = ?", (call.chat_id,)):
            self._pending.setdefault(call.chat_id, []).append(call)
            return
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM mcp_app_calls WHERE chat_id = ?", (call.chat_id,)
            ).fetchone()
            conn.execute(
                "INSERT OR REPLACE INTO mcp_app_calls"
                "(chat_id, call_id, turn_id, server, tool, uri, arguments, result, seq)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    call.chat_id,
                    call.call_id,
                    call.turn_id,
                    call.server,
                    call.tool,
                    call.uri,
                    json.dumps(call.arguments, ensure_ascii=False),
                    json.dumps(call.result, ensure_ascii=False),
                    int(row[0]) + 1,
                ),
            )

    def flush(self, chat_id: str) -> None:
        for call in self._pending.pop(chat_id, []):
            self.record(call)

    def list(self, chat_id: str) -> list[AppCall]:
        rows = self._db.query("SELECT * FROM mcp_app_calls WHERE chat_id = ? ORDER BY seq", (chat_id,))
        return [*(_call(r) for r in rows), *self._pending.get(chat_id, [])]

    def get(self, chat_id: str, call_id: str) -> AppCall | None:
        return next((c for c in self.list(chat_id) if c.call_id == call_id), None)


def _call(row: Any) -> AppCall:
    return AppCall(
        chat_id=str(row["chat_id"]),
        call_id=str(row["call_id"]),
        turn_id=str(row["turn_id"]),
        server=str(row["server"]),
        tool=str(row["tool"]),
        uri=str(row["uri"]),
        arguments=_obj(row["arguments"]),
        result=_obj(row["result"]),
    )


def _obj(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
