"""The memory capability's tables (one forward migration, appended to app/store/migrations.py).

- `memories` (+ `memory_tags`, `memories_fts`): explicit memories; `search_text` is the
  case-folded content and tags, the one column keyword search looks at.
- `memory_versions`: every MEMORY.md text ever written, with author, time and a diff.
- `chat_summaries`: consolidation summaries; the newest row of a chat is the one in use.
- `dream_cursors` / `dream_proposals`: Dream's per-chat progress and its review inbox.
- `notes` / `todos`.
- step 2 (issue 39): `memory_line_sources` (where a MEMORY.md line came from, keyed by its
  normalised text), `memory_tombstones` (forgotten lines Dream and save_memory never write
  back) and `memories.asked_by` (which chat or command asked for an explicit memory).
- step 3 (issue 38): an `owner` column on those tables (an agent's own memory, see OWNERS).
"""

from __future__ import annotations

import sqlite3

from app.store.migrations import run_script

SCHEMA = """
CREATE TABLE memories (
    num          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    content      TEXT NOT NULL,
    tags         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
    search_text  TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX memories_updated ON memories(updated_at DESC, num DESC);

CREATE TABLE memory_tags (
    tag         TEXT NOT NULL,
    memory_num  INTEGER NOT NULL REFERENCES memories(num) ON DELETE CASCADE,
    updated_at  TEXT NOT NULL,  -- the memory's, so a tag filter reads newest-first from the index
    PRIMARY KEY (tag, memory_num)
);
CREATE INDEX memory_tags_newest ON memory_tags(tag, updated_at DESC, memory_num DESC);
CREATE INDEX memory_tags_memory ON memory_tags(memory_num);

CREATE TABLE memory_versions (
    id          INTEGER PRIMARY KEY,
    author      TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    diff        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

CREATE TABLE chat_summaries (
    id                INTEGER PRIMARY KEY,
    chat_id           TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    content           TEXT NOT NULL,
    keep_from_cursor  INTEGER NOT NULL,
    created_at        TEXT NOT NULL
);
CREATE INDEX chat_summaries_chat ON chat_summaries(chat_id, id DESC);

CREATE TABLE dream_cursors (
    chat_id  TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    cursor   INTEGER NOT NULL
);

CREATE TABLE dream_proposals (
    id           TEXT PRIMARY KEY,
    base_sha256  TEXT NOT NULL,
    text         TEXT NOT NULL,
    diff         TEXT NOT NULL,
    analysis     TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
    created_at   TEXT NOT NULL,
    decided_at   TEXT
);

CREATE TABLE notes (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    content     TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE todos (
    id            TEXT PRIMARY KEY,
    title         TEXT NOT NULL,
    done          INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    completed_at  TEXT
);
"""

# Substring search over 100,000 memories must stay fast: a trigram index answers keywords of
# three or more characters; shorter ones (and SQLite builds without FTS5) fall back to LIKE.
FTS = """
CREATE VIRTUAL TABLE memories_fts USING fts5(
    search_text, content='memories', content_rowid='num', tokenize='trigram'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, search_text) VALUES (new.num, new.search_text);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, search_text) VALUES ('delete', old.num, old.search_text);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF search_text ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, search_text) VALUES ('delete', old.num, old.search_text);
    INSERT INTO memories_fts(rowid, search_text) VALUES (new.num, new.search_text);
END;
"""

FTS_TABLE = "memories_fts"

PROVENANCE = """
CREATE TABLE memory_line_sources (
    id          INTEGER PRIMARY KEY,
    line_key    TEXT NOT NULL,
    line        TEXT NOT NULL,
    author      TEXT NOT NULL,
    chat_id     TEXT NOT NULL DEFAULT '',
    turn_id     TEXT NOT NULL DEFAULT '',
    cursors     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(cursors)),
    version_id  INTEGER,
    created_at  TEXT NOT NULL
);
CREATE INDEX memory_line_sources_key ON memory_line_sources(line_key, id);

CREATE TABLE memory_tombstones (
    id          INTEGER PRIMARY KEY,
    line_key    TEXT NOT NULL UNIQUE,
    line        TEXT NOT NULL,
    version_id  INTEGER,
    created_at  TEXT NOT NULL
);

ALTER TABLE memories ADD COLUMN asked_by TEXT NOT NULL DEFAULT '';
"""


def migrate_memory(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA)
    try:
        conn.execute("SAVEPOINT memfts")
        run_script(conn, FTS)
        conn.execute("RELEASE memfts")
    except sqlite3.OperationalError:  # no fts5 or no trigram tokenizer: LIKE fallback
        conn.execute("ROLLBACK TO memfts")
        conn.execute("RELEASE memfts")

# Step 3 (issue 38): an agent with its own memory has its own MEMORY.md versions, explicit
# memories, line sources and forgotten lines. `owner` is "" for the shared memory (every row
# written before this step) and the agent's id otherwise. A tombstone is unique per owner, so
# its table is rebuilt (SQLite cannot change a UNIQUE constraint in place).
OWNERS = """
ALTER TABLE memories ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX memories_owner ON memories(owner, updated_at DESC, num DESC);

ALTER TABLE memory_versions ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX memory_versions_owner ON memory_versions(owner, id DESC);

ALTER TABLE memory_line_sources ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX memory_line_sources_owner ON memory_line_sources(owner, line_key, id);

CREATE TABLE memory_tombstones_v2 (
    id          INTEGER PRIMARY KEY,
    owner       TEXT NOT NULL DEFAULT '',
    line_key    TEXT NOT NULL,
    line        TEXT NOT NULL,
    version_id  INTEGER,
    created_at  TEXT NOT NULL,
    UNIQUE (owner, line_key)
);
INSERT INTO memory_tombstones_v2 (id, line_key, line, version_id, created_at)
    SELECT id, line_key, line, version_id, created_at FROM memory_tombstones;
DROP TABLE memory_tombstones;
ALTER TABLE memory_tombstones_v2 RENAME TO memory_tombstones;
"""
