"""Per-chat activity kept next to the messages: how many user/assistant messages a chat has and
when the last one was written (the chat list shows both for every row).

Counting them per page of the list read every message of the listed chats — about a second
for a page holding a 100,000-message chat (bench/bench_scale.py) — so triggers keep a small
table up to date instead, whatever code writes the messages (turns, imports, migrations).
A deleted message lowers the count; `last_message_at` keeps the newest time ever written
(recomputing it would read the chat's whole history on every deletion).
"""

from __future__ import annotations

import sqlite3

ACTIVITY_V1 = """
CREATE TABLE chat_activity (
    chat_id          TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    message_count    INTEGER NOT NULL DEFAULT 0,
    last_message_at  TEXT
) WITHOUT ROWID;
CREATE TRIGGER chat_activity_insert AFTER INSERT ON messages
WHEN new.role IN ('user', 'assistant') BEGIN
    INSERT INTO chat_activity (chat_id, message_count, last_message_at)
    VALUES (new.chat_id, 1, new.created_at)
    ON CONFLICT (chat_id) DO UPDATE SET
        message_count = message_count + 1,
        last_message_at = max(COALESCE(last_message_at, ''), excluded.last_message_at);
END;
CREATE TRIGGER chat_activity_delete AFTER DELETE ON messages
WHEN old.role IN ('user', 'assistant') BEGIN
    UPDATE chat_activity SET message_count = message_count - 1 WHERE chat_id = old.chat_id;
END;
CREATE TRIGGER chat_activity_move AFTER UPDATE OF role, chat_id ON messages BEGIN
    UPDATE chat_activity SET message_count = message_count - 1
    WHERE chat_id = old.chat_id AND old.role IN ('user', 'assistant');
    INSERT INTO chat_activity (chat_id, message_count, last_message_at)
    SELECT new.chat_id, 1, new.created_at WHERE new.role IN ('user', 'assistant')
    ON CONFLICT (chat_id) DO UPDATE SET
        message_count = message_count + 1,
        last_message_at = max(COALESCE(last_message_at, ''), excluded.last_message_at);
END;
"""

BACKFILL = """
INSERT INTO chat_activity (chat_id, message_count, last_message_at)
SELECT chat_id, COUNT(*), MAX(created_at) FROM messages
WHERE role IN ('user', 'assistant') GROUP BY chat_id
"""


def migrate_chat_activity(conn: sqlite3.Connection) -> None:
    from app.store.sql_script import run_script

    run_script(conn, ACTIVITY_V1)
    conn.execute(BACKFILL)
