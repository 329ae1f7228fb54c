"""Forward-only schema migrations, applied in order under `PRAGMA user_version`.

Migration N (1-based) brings the schema from version N-1 to N: either an SQL script or a
function given the connection (inside the migration transaction). Never edit a released
entry; append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

Migration = str | Callable[[sqlite3.Connection], None]

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


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run each statement (`executescript` would COMMIT the migration transaction first)."""
    for statement in split_statements(script):
        conn.execute(statement)


def split_statements(script: str) -> list[str]:
    statements: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                statements.append(buf.strip())
            buf = ""
    if buf.strip():
        raise ValueError(f"incomplete SQL statement in migration: {buf.strip()[:80]!r}")
    return statements


def _v1(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA_V1)
    try:
        conn.execute("SAVEPOINT fts")
        run_script(conn, FTS_V1)
        conn.execute("RELEASE fts")
    except sqlite3.OperationalError:  # no fts5 module or no trigram tokenizer
        conn.execute("ROLLBACK TO fts")
        conn.execute("RELEASE fts")


def _import_records(conn: sqlite3.Connection) -> None:
    from app.importer.schema import migrate_import_records  # what `cashcode import` recorded

    migrate_import_records(conn)


def _mcp_activations(conn: sqlite3.Connection) -> None:
    from app.mcp.activations import migrate

    migrate(conn)


def _memory(conn: sqlite3.Connection) -> None:
    from app.memory.schema import migrate_memory  # the memory capability's own tables

    migrate_memory(conn)


def _skill_activations(conn: sqlite3.Connection) -> None:
    from app.skills.activations import migrate  # the SQL lives with the Skills runtime

    migrate(conn)


def _traces(conn: sqlite3.Connection) -> None:
    from app.observability.schema import TRACES_V1

    run_script(conn, TRACES_V1)


def _branches(conn: sqlite3.Connection) -> None:
    from app.store.branches import SCHEMA  # chats become trees; existing ones stay one branch

    run_script(conn, SCHEMA)


def _chat_counts(conn: sqlite3.Connection) -> None:
    from app.store.counts import migrate  # message counters a chat opens with

    migrate(conn)


# One entry per line, appended in order (never reorder released entries).
MIGRATIONS: Sequence[Migration] = (
    _v1,
    _import_records,
    _mcp_activations,
    _memory,
    _skill_activations,
    _traces,
    _branches,
    _chat_counts,
)

LATEST_VERSION = len(MIGRATIONS)
