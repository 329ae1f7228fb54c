"""The text of text-file and PDF attachments in the history search (issue 25 item 7).

`attachment_texts` holds each file's text once (content-addressed, like the bytes), with a
trigram FTS index as messages have (`messages_fts`, app/store/migrations.py); without FTS5
the search scans the table with LIKE. `message_attachments` links a message to the files it
carries, filled by a trigger from the message's meta, so every writer (turns, imports) is
covered. The text itself needs the file: it is indexed when the file is uploaded, and for
files that arrived otherwise (older messages, imported chats) by `index_missing`, a bounded
batch the history search runs before it searches. Decision 247.
"""

from __future__ import annotations

import builtins
import sqlite3
from dataclasses import dataclass

from app.attachments.kinds import MAX_TEXT_CHARS
from app.attachments.pdf_text import PdfUnreadable, pdf_text
from app.attachments.store import AttachmentMissing, AttachmentStore
from app.store.db import Database
from app.store.search import TRIGRAM, fts_query, like_patterns, snippet
from app.store.sql_script import run_script

FTS_TABLE = "attachment_texts_fts"
INDEX_BATCH = 50  # files indexed per search at most (the rest on the next ones)

SCHEMA_V1 = """
CREATE TABLE attachment_texts (
    id      INTEGER PRIMARY KEY,
    sha256  TEXT NOT NULL UNIQUE,
    text    TEXT NOT NULL
);
CREATE TABLE message_attachments (
    message_id  INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    sha256      TEXT NOT NULL,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    PRIMARY KEY (message_id, sha256)
) WITHOUT ROWID;
CREATE INDEX message_attachments_sha ON message_attachments(sha256);
CREATE TRIGGER message_attachments_insert AFTER INSERT ON messages
WHEN new.meta LIKE '%"attachments"%' BEGIN
    INSERT OR IGNORE INTO message_attachments (message_id, sha256, name, kind)
    SELECT new.id, json_extract(value, '$.sha256'), json_extract(value, '$.name'),
           json_extract(value, '$.kind')
    FROM json_each(new.meta, '$.attachments')
    WHERE json_extract(value, '$.kind') IN ('text', 'pdf');
END;
INSERT OR IGNORE INTO message_attachments (message_id, sha256, name, kind)
SELECT m.id, json_extract(a.value, '$.sha256'), json_extract(a.value, '$.name'),
       json_extract(a.value, '$.kind')
FROM messages m, json_each(m.meta, '$.attachments') a
WHERE m.meta LIKE '%"attachments"%' AND json_extract(a.value, '$.kind') IN ('text', 'pdf');
"""

FTS_V1 = """
CREATE VIRTUAL TABLE attachment_texts_fts USING fts5(
    text, content='attachment_texts', content_rowid='id', tokenize='trigram'
);
CREATE TRIGGER attachment_texts_fts_insert AFTER INSERT ON attachment_texts BEGIN
    INSERT INTO attachment_texts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER attachment_texts_fts_delete AFTER DELETE ON attachment_texts BEGIN
    INSERT INTO attachment_texts_fts(attachment_texts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""


def migrate_v1(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA_V1)
    try:
        conn.execute("SAVEPOINT fts")
        run_script(conn, FTS_V1)
        conn.execute("RELEASE fts")
    except sqlite3.OperationalError:  # no fts5 module or no trigram tokenizer: LIKE scans
        conn.execute("ROLLBACK TO fts")
        conn.execute("RELEASE fts")


@dataclass(frozen=True)
class AttachmentHit:
    chat_id: str
    chat_title: str
    cursor: int  # the message carrying the file
    role: str
    name: str  # the file's name as attached
    snippet: str
    created_at: str


def extract_text(files: AttachmentStore, sha256: str, kind: str) -> str:
    """What the search indexes of one file: a text file's text, a PDF's text layer (cached
    beside the file, as a send does); "" for a missing or unreadable file."""
    try:
        if kind == "pdf":
            cached = files.text_sidecar(sha256)
            if cached is None:
                try:
                    cached = pdf_text(files.read(sha256), MAX_TEXT_CHARS)
                except PdfUnreadable:
                    return ""
                files.save_text_sidecar(sha256, cached)
            return cached
        return files.read(sha256).decode("utf-8", errors="replace")[:MAX_TEXT_CHARS]
    except (AttachmentMissing, OSError):
        return ""


class AttachmentTexts:
    def __init__(self, db: Database, files: AttachmentStore) -> None:
        self._db = db
        self._files = files
        self._fts: bool | None = None

    def add(self, sha256: str, kind: str) -> None:
        """Index one file's text (once per content; a second upload of it changes nothing)."""
        if self._db.query("SELECT 1 FROM attachment_texts WHERE sha256 = ?", (sha256,)):
            return
        text = extract_text(self._files, sha256, kind)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO attachment_texts (sha256, text) VALUES (?, ?)", (sha256, text)
            )

    def index_missing(self, limit: int = INDEX_BATCH) -> int:
        """Index up to `limit` attached files that have no text row yet; how many were."""
        rows = self._db.query(
            "SELECT sha256, MIN(kind) FROM message_attachments ma WHERE NOT EXISTS"
            " (SELECT 1 FROM attachment_texts t WHERE t.sha256 = ma.sha256) GROUP BY sha256 LIMIT ?",
            (limit,),
        )
        for sha256, kind in rows:
            self.add(str(sha256), str(kind))
        return len(rows)

    def search(self, query: str, *, limit: int = 50) -> builtins.list[AttachmentHit]:
        """Messages whose attached files contain every word of `query`, newest first."""
        terms = query.split()
        if not terms or limit < 1:
            return []
        long_terms = [t for t in terms if len(t) >= TRIGRAM]
        short = like_patterns([t for t in terms if len(t) < TRIGRAM])
        params: builtins.list[object]
        if self._has_fts() and long_terms:
            where = f"t.id IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?)"
            params = [fts_query(long_terms)]
            where += "".join(" AND t.text LIKE ? ESCAPE '\\'" for _ in short)
            params += short
        else:  # few files compared with messages: a LIKE scan of their texts
            patterns = like_patterns(terms)
            where = " AND ".join("t.text LIKE ? ESCAPE '\\'" for _ in patterns)
            params = [*patterns]
        rows = self._db.query(
            "SELECT m.chat_id, c.title, m.cursor, m.role, ma.name, t.text, m.created_at"
            " FROM attachment_texts t JOIN message_attachments ma ON ma.sha256 = t.sha256"
            " JOIN messages m ON m.id = ma.message_id JOIN chats c ON c.id = m.chat_id"
            f" WHERE {where} ORDER BY m.id DESC LIMIT ?",
            (*params, limit),
        )
        return [AttachmentHit(r[0], r[1], r[2], r[3], r[4], snippet(r[5], terms), r[6]) for r in rows]

    def _has_fts(self) -> bool:
        if self._fts is None:
            self._fts = self._db.has_table(FTS_TABLE)
        return self._fts

