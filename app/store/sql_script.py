"""Running a multi-statement SQL script inside an open transaction (schema steps)."""

from __future__ import annotations

import sqlite3


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
