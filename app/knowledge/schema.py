"""The knowledge capability's tables (its own schema part, app/knowledge/plugin.py).

- `kb_bases`: a knowledge base by name; `pending` = an index run was started and has not
  finished (a crash or kill -9 leaves it set, so the next start resumes it).
- `kb_roots`: the folders and single files of a base.
- `kb_files`: a file whose chunks are all stored: size, mtime and SHA-256 as indexed. A file
  row and its chunks are written in one transaction, so a half-indexed file never exists.
- `kb_chunks` + `kb_fts`: the chunks and their FTS5 index. `kb_fts` holds the chunk's text
  already tokenised by app/search/bm25.py (space-separated tokens), so FTS5 only splits at
  spaces and the matching rules are the shared tokeniser's (CJK bigrams, identifiers, stems).
- `kb_skipped`: files a scan left out, with the reason.
- `kb_vectors` (step 2): a chunk's embedding for the chosen model, when embeddings are on.
"""

from __future__ import annotations

SCHEMA_V1 = """
CREATE TABLE kb_bases (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    indexed_at  TEXT,
    pending     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE kb_roots (
    id       INTEGER PRIMARY KEY,
    base_id  INTEGER NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
    path     TEXT NOT NULL,
    UNIQUE (base_id, path)
);

CREATE TABLE kb_files (
    id       INTEGER PRIMARY KEY,
    base_id  INTEGER NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
    path     TEXT NOT NULL,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256   TEXT NOT NULL,
    UNIQUE (base_id, path)
);

CREATE TABLE kb_chunks (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES kb_files(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    heading     TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL
);
CREATE INDEX kb_chunks_file ON kb_chunks(file_id, ord);

CREATE VIRTUAL TABLE kb_fts USING fts5(
    tokens, tokenize = "unicode61 remove_diacritics 0 tokenchars '_-'"
);

CREATE TABLE kb_skipped (
    base_id  INTEGER NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
    path     TEXT NOT NULL,
    reason   TEXT NOT NULL,
    PRIMARY KEY (base_id, path)
);
"""

# Step 2 (optional embeddings): one vector per chunk and model, float32, length 1.
VECTORS_V2 = """
CREATE TABLE kb_vectors (
    chunk_id  INTEGER PRIMARY KEY REFERENCES kb_chunks(id) ON DELETE CASCADE,
    model     TEXT NOT NULL,
    vec       BLOB NOT NULL
);
CREATE INDEX kb_vectors_model ON kb_vectors(model);
"""
