"""The Inbox's table (app/store/inbox.py), apart so the migrations need not import the store."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS inbox_items (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    chat_id      TEXT,
    item_json    TEXT NOT NULL CHECK (json_valid(item_json)),
    form_json    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(form_json)),
    created_at   TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending',
    answer       TEXT,
    answer_json  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(answer_json)),
    answered_by  TEXT,
    answered_at  TEXT,
    owner_pid    INTEGER,
    owner_start  TEXT,
    resumable    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS inbox_items_status ON inbox_items(status, created_at);
"""
