"""Per-chat message counters, kept by triggers (one migration, appended in migrations.py).

Opening a chat shows its message count and last activity; counting a 100,000-message chat's
rows took ~70 ms on every `chats.get`. `chat_counts` holds both, updated by a trigger on every
message insert (so the store, imports and bench seeders that write rows directly all keep it
true) and removed with the chat. Messages are never deleted one by one, so insert is enough.
"""

from __future__ import annotations

import sqlite3

from app.store.migrations import run_script

SCHEMA = """
CREATE TABLE chat_counts (
    chat_id       TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    said          INTEGER NOT NULL,  -- user and assistant messages (tool results not counted)
    last_said_at  TEXT
);
CREATE TRIGGER chat_counts_insert AFTER INSERT ON messages
WHEN new.role IN ('user', 'assistant') BEGIN
    INSERT INTO chat_counts (chat_id, said, last_said_at) VALUES (new.chat_id, 1, new.created_at)
    ON CONFLICT (chat_id) DO UPDATE SET
        said = said + 1, last_said_at = max(COALESCE(last_said_at, ''), excluded.last_said_at);
END;
"""

BACKFILL = """
INSERT INTO chat_counts (chat_id, said, last_said_at)
SELECT chat_id, COUNT(*), MAX(created_at) FROM messages
WHERE role IN ('user', 'assistant') GROUP BY chat_id;
"""


def migrate(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA)
    run_script(conn, BACKFILL)
