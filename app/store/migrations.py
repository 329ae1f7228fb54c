"""Forward-only schema migrations, applied in order under `PRAGMA user_version`.

Migration N (1-based) brings the schema from version N-1 to N. Never edit a released entry;
append a new one.
"""

from __future__ import annotations

from collections.abc import Sequence

_V1 = """
CREATE TABLE chats (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    title_auto  INTEGER NOT NULL DEFAULT 1,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX chats_updated_at ON chats(updated_at DESC, id);

CREATE TABLE messages (
    id            INTEGER PRIMARY KEY,
    chat_id       TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    cursor        INTEGER NOT NULL,
    turn_id       TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content       TEXT NOT NULL DEFAULT '',
    tool_calls    TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tool_calls)),
    tool_call_id  TEXT,
    name          TEXT,
    meta          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
    created_at    TEXT NOT NULL,
    UNIQUE (chat_id, cursor)
);
CREATE INDEX messages_turn ON messages(chat_id, turn_id);

CREATE TABLE approval_grants (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    key_json    TEXT NOT NULL CHECK (json_valid(key_json)),
    workspace   TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    chat_id     TEXT,
    UNIQUE (kind, key_json, workspace)
);

CREATE TABLE usage (
    id             INTEGER PRIMARY KEY,
    chat_id        TEXT NOT NULL,
    turn_id        TEXT NOT NULL,
    provider_id    TEXT NOT NULL,
    model          TEXT NOT NULL,
    input_tokens   INTEGER,
    output_tokens  INTEGER,
    created_at     TEXT NOT NULL
);
CREATE INDEX usage_chat ON usage(chat_id);
CREATE INDEX usage_created_at ON usage(created_at);
"""

# usage.chat_id deliberately has no foreign key: usage stays countable after a chat is deleted.
MIGRATIONS: Sequence[str] = (_V1,)

LATEST_VERSION = len(MIGRATIONS)
