"""The database is what the app wrote (issue 24 item 4): triggers, views and indexes the app did
not create are refused on open with the file unchanged; `PRAGMA quick_check` runs at start in
the background and damage is reported with what to do."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.store.chats import ChatRepository
from app.store.db import quick_check
from app.store.errors import StoreError


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fresh(tmp_path: Path) -> Path:
    path = tmp_path / "cashcode.sqlite3"
    with open_database(path) as db:
        ChatRepository(db).create("a chat")
    return path


@pytest.mark.parametrize(
    ("plant", "named"),
    [
        ("CREATE TRIGGER wipe AFTER INSERT ON messages BEGIN DELETE FROM chats; END", "trigger 'wipe'"),
        ("CREATE VIEW peek AS SELECT * FROM chats", "view 'peek'"),
        ("CREATE INDEX extra_idx ON chats(title)", "index 'extra_idx'"),
    ],
)
def test_a_planted_schema_object_is_refused_and_the_file_left_alone(
    tmp_path: Path, plant: str, named: str
) -> None:
    path = _fresh(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute(plant)
    before = _digest(path)
    with pytest.raises(StoreError) as refused:
        open_database(path)
    assert named in str(refused.value) and "DROP" in str(refused.value)
    assert _digest(path) == before
    with sqlite3.connect(path) as conn:  # what the message says to do works
        kind, name = named.split(" ", 1)
        conn.execute(f"DROP {kind.upper()} {name.strip(chr(39))}")
    open_database(path).close()


def test_a_changed_body_of_one_of_the_apps_own_triggers_is_refused(tmp_path: Path) -> None:
    path = _fresh(tmp_path)
    with sqlite3.connect(path) as conn:
        row = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' LIMIT 1").fetchone()
        assert row is not None, "the app's schema has triggers (FTS sync)"
        conn.execute(f"DROP TRIGGER {row[0]}")
        conn.execute(f"CREATE TRIGGER {row[0]} AFTER INSERT ON chats BEGIN DELETE FROM chats; END")
    with pytest.raises(StoreError, match=row[0]):
        open_database(path)


def test_quick_check_finds_damage_and_passes_a_sound_file(tmp_path: Path) -> None:
    path = _fresh(tmp_path)
    with open_database(path) as db:
        chats = ChatRepository(db)
        for i in range(400):
            chats.create(f"chat number {i} " + "x" * 200)
    assert quick_check(path) == []
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    for start in range(page * 2, len(data) - page, page * 3):  # garbage inside b-tree pages
        data[start + 8 : start + 200] = b"\xff" * 192
    path.write_bytes(bytes(data))
    problems = quick_check(path)
    assert problems and all(isinstance(p, str) and p for p in problems)
