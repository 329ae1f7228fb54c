"""The import_records table (migration appended in app/store/migrations.py). No store imports
here: the migration list is loaded by the database module itself."""

from __future__ import annotations

import sqlite3

IMPORT_RECORDS_SQL = """
CREATE TABLE import_records (
    item_key     TEXT PRIMARY KEY,
    target       TEXT NOT NULL DEFAULT '',
    imported_at  TEXT NOT NULL
)
"""


def migrate_import_records(conn: sqlite3.Connection) -> None:
    conn.execute(IMPORT_RECORDS_SQL)
