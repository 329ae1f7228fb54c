"""Issue 24 item 4: the database is what the app wrote. A planted trigger, view or index is
reported by name and the database refused; a damaged page fails `quick_check` readably."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.api.plugins import PLUGINS, open_database
from app.store.errors import StoreError


def _fresh(path: Path) -> None:
    open_database(path, PLUGINS).close()


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        (
            "CREATE TRIGGER wipe AFTER INSERT ON messages"
            " BEGIN DELETE FROM chats WHERE id = NEW.chat_id; END",
            "trigger 'wipe'",
        ),
        ("CREATE VIEW peek AS SELECT * FROM messages", "view 'peek'"),
        ("CREATE INDEX spy ON messages(content)", "index 'spy'"),
    ],
)
def test_an_object_the_app_did_not_create_is_named_and_refused(tmp_path: Path, sql: str, named: str) -> None:
    path = tmp_path / "cashcode.sqlite3"
    _fresh(path)
    other = sqlite3.connect(path)
    other.execute(sql)
    other.commit()
    other.close()
    with pytest.raises(StoreError) as caught:
        open_database(path, PLUGINS)
    assert named in str(caught.value) and "did not create" in str(caught.value)


def test_an_altered_trigger_of_the_app_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "cashcode.sqlite3"
    _fresh(path)
    other = sqlite3.connect(path)
    name, sql = other.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' LIMIT 1").fetchone()
    other.execute(f"DROP TRIGGER {name}")
    other.execute(sql.replace("BEGIN", "BEGIN DELETE FROM chats;", 1))
    other.commit()
    other.close()
    with pytest.raises(StoreError, match=name):
        open_database(path, PLUGINS)


def test_a_clean_database_opens_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / "cashcode.sqlite3"
    _fresh(path)
    open_database(path, PLUGINS).close()


def test_a_damaged_page_fails_the_quick_check_readably_and_is_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "cashcode.sqlite3"
    db = open_database(path, PLUGINS)
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?,?,0,'t','t')",
            [(f"00000000-0000-4000-8000-{i:012d}", "x" * 300) for i in range(400)],
        )
    db.close()
    with sqlite3.connect(path) as plain:  # fold the WAL into the file, then damage a page
        plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    leaves = [i for i in range(1, len(data) // page) if data[i * page] == 0x0D]  # table leaf pages
    leaf = leaves[len(leaves) // 2]
    data[leaf * page + 3 : leaf * page + 5] = (500).to_bytes(2, "big")  # more cells than fit
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        open_database(path, PLUGINS)
    assert "integrity check" in str(caught.value) and "left unchanged" in str(caught.value)
    assert path.read_bytes() == before
