"""The store step that rewrites timestamps other writers stored in another ISO form (an
imported `…00Z`) into the fixed-width UTC form, so text order is time order again (issue 40)."""

from __future__ import annotations

import sqlite3

from app.store.timeutil import FIXED_GLOB, normalize_iso

# (table, key column, timestamp columns)
_COLUMNS = (("chats", "id", ("created_at", "updated_at")), ("messages", "id", ("created_at",)))


def migrate_fixed_width_times(conn: sqlite3.Connection) -> None:
    touched: set[str] = set()
    for table, key, columns in _COLUMNS:
        for column in columns:
            rows = conn.execute(
                f"SELECT {key}, {column}, {'id' if table == 'chats' else 'chat_id'} FROM {table}"
                f" WHERE {column} NOT GLOB ?",
                (FIXED_GLOB,),
            ).fetchall()
            for row_key, value, chat_id in rows:
                try:
                    fixed = normalize_iso(str(value))
                except ValueError:
                    continue  # not a date-time at all: left as it is
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (fixed, row_key))
                touched.add(chat_id)
    # The list's "last activity" is the max of the messages' times as text: recompute it.
    for chat_id in touched:
        conn.execute(
            "UPDATE chat_activity SET last_message_at = (SELECT MAX(created_at) FROM messages"
            " WHERE chat_id = ? AND role IN ('user', 'assistant')) WHERE chat_id = ?",
            (chat_id, chat_id),
        )
