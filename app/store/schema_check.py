"""Is the database what the app wrote? (issue 24 item 4)

`quick_check` finds damaged pages before anything is read or changed. After the migrations the
file's triggers, views and indexes must be exactly those the app's own steps create: a trigger
planted by another program runs inside every one of our writes (one deleted a chat mid-turn),
so an unknown or altered one is reported by name and the database is refused, unchanged
beyond our own migrations. The expected set comes from running the same steps on an empty
in-memory database (milliseconds), so it never drifts from the migrations."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Protocol

from app.contracts.capability import Migration
from app.store.sql_script import run_script

Objects = set[tuple[str, str, str]]  # (type, name, normalised SQL)


class _Part(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def steps(self) -> tuple[Migration, ...]: ...


def quick_check_problems(conn: sqlite3.Connection, limit: int = 5) -> list[str]:
    """The first `limit` problems `PRAGMA quick_check` reports; empty when the file is sound."""
    rows = [str(r[0]) for r in conn.execute(f"PRAGMA quick_check({int(limit)})").fetchall()]
    return [] if rows == ["ok"] else rows


def schema_objects(conn: sqlite3.Connection, tables: set[str] | None = None) -> Objects:
    """Triggers, views and indexes; with `tables`, only views and what is on those tables."""
    rows = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master"
        " WHERE type IN ('trigger', 'view', 'index') AND sql IS NOT NULL"
    ).fetchall()
    return {
        (str(t), str(n), " ".join(str(s).split()))
        for t, n, tbl, s in rows
        if tables is None or t == "view" or str(tbl) in tables
    }


def _expected(parts: Iterable[_Part]) -> tuple[Objects, set[str]]:
    mem = sqlite3.connect(":memory:", isolation_level=None)
    try:
        mem.execute("PRAGMA foreign_keys = ON")
        mem.execute("BEGIN")
        for part in parts:
            for step in part.steps:
                if isinstance(step, str):
                    run_script(mem, step)
                else:
                    step(mem)
        tables = {str(r[0]) for r in mem.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return schema_objects(mem), tables
    finally:
        mem.close()


def unknown_objects(conn: sqlite3.Connection, parts: Sequence[_Part]) -> list[str]:
    """`trigger 'x'`-style names of objects in the file the app's steps do not create. Only the
    tables of the parts this build knows are judged (and every view: the app makes none): a
    capability missing from this build keeps its own indexes and triggers."""
    expected, tables = _expected(parts)
    extra = schema_objects(conn, tables) - expected
    return sorted(f"{kind} {name!r}" for kind, name, _sql in extra)
