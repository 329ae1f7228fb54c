"""The store's own forward-only schema steps (chats, messages, grants, usage, branches, chat
activity, visible counts). Each capability declares its own steps in its plugin (CapabilityPlugin.migrations);
app/store/db.py applies both and records a version per part in `schema_parts`.

Step N (1-based) brings the part from version N-1 to N: an SQL script or a function given the
connection (inside the migration transaction). Never edit a released step; append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from app.contracts.capability import Migration
from app.store.sql_script import run_script as run_script
from app.store.sql_script import split_statements as split_statements

SCHEMA_V1 = """
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

# Full-text search over message text. The trigram tokenizer matches substrings in any script
# (Chinese has no spaces). It needs SQLite >= 3.34 with FTS5; without it the table is simply
# absent and search falls back to a LIKE scan (see chats.py), so the database still opens.
FTS_V1 = """
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content='messages', content_rowid='id', tokenize='trigram'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
"""

FTS_TABLE = "messages_fts"


def _v1(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA_V1)
    try:
        conn.execute("SAVEPOINT fts")
        run_script(conn, FTS_V1)
        conn.execute("RELEASE fts")
    except sqlite3.OperationalError:  # no fts5 module or no trigram tokenizer
        conn.execute("ROLLBACK TO fts")
        conn.execute("RELEASE fts")


def _branches(conn: sqlite3.Connection) -> None:
    from app.store.branches import SCHEMA  # chats become trees; existing ones stay one branch

    run_script(conn, SCHEMA)


def _chat_activity(conn: sqlite3.Connection) -> None:
    from app.store.activity import migrate_chat_activity  # per-chat counts for the chat list

    migrate_chat_activity(conn)


def _grant_enabled(conn: sqlite3.Connection) -> None:
    """Imported grants arrive disabled (issue 23 item 4): the user enables each one in the
    ledger. Skipped when the column is there already (a database converted from the old
    single-list layout is renumbered by what it had, not by what ran)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(approval_grants)")}
    if "enabled" not in columns:
        conn.execute("ALTER TABLE approval_grants ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1")


def _visible_count(conn: sqlite3.Connection) -> None:
    from app.store.visible import migrate_visible_count  # the chat list counts what is shown

    migrate_visible_count(conn)


def _fixed_width_times(conn: sqlite3.Connection) -> None:
    from app.store.times import migrate_fixed_width_times  # imported `…00Z` sorts as time again

    migrate_fixed_width_times(conn)


def _inbox(conn: sqlite3.Connection) -> None:
    # Every pending question of every run (issue 35); "IF NOT EXISTS": a converted old-layout
    # database may run it again.
    from app.store.inbox_schema import SCHEMA

    run_script(conn, SCHEMA)


# The store's own steps, one per line, appended in order (never reorder released entries).
MIGRATIONS: Sequence[Migration] = (
    _v1,
    _branches,
    _chat_activity,
    _grant_enabled,
    _visible_count,
    _fixed_width_times,
    _inbox,
)

LATEST_VERSION = len(MIGRATIONS)

# Before schema parts, one global list numbered every step (PRAGMA user_version 1..8); a
# database of that layout is converted by naming, per old version, the part and step it was.
LEGACY_STEPS: tuple[tuple[str, int], ...] = (
    ("store", 1),
    ("import", 1),
    ("mcp", 1),
    ("memory", 1),
    ("skills", 1),
    ("observability", 1),
    ("store", 2),
    ("store", 3),
)
