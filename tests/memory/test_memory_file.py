"""MEMORY.md: every change is a version with author and diff; revert; disk edits; bad bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.memory.memory_file import MemoryFile, MemoryFileError, sha256_text
from app.store.errors import Conflict, NotFound


@pytest.fixture
def mem(tmp_path: Path) -> MemoryFile:
    return MemoryFile(open_database(tmp_path / "db.sqlite3"), tmp_path)


def test_writes_are_versions_and_revert_restores_an_earlier_text(mem: MemoryFile) -> None:
    assert mem.read().text == "" and mem.versions() == []
    first = mem.write("# Facts\n- a", "user")
    mem.append_fact("b")
    mem.write("# Facts\n- c", "dream")
    assert [v.author for v in mem.versions()] == ["dream", "save_memory", "user"]
    assert "-- b" in mem.versions()[0].diff and "+- c" in mem.versions()[0].diff
    assert first.version_id is not None
    reverted = mem.revert(first.version_id)
    assert mem.path.read_text(encoding="utf-8") == "# Facts\n- a\n" == reverted.text
    assert mem.versions()[0].author == "revert"
    with pytest.raises(NotFound):
        mem.revert(9999)


def test_unchanged_write_adds_no_version_and_a_stale_base_conflicts(mem: MemoryFile) -> None:
    mem.write("x", "user")
    mem.write("x\n", "user")
    assert len(mem.versions()) == 1
    with pytest.raises(Conflict):
        mem.write("y", "user", base_sha256=sha256_text("something else"))
    assert mem.read().text == "x\n"


def test_an_edit_on_disk_is_recorded_as_a_version(mem: MemoryFile) -> None:
    mem.write("- a", "user")
    mem.path.write_text("- a\n- edited by hand\n", encoding="utf-8")
    current = mem.read()
    assert current.text.endswith("- edited by hand\n")
    assert mem.versions()[0].author == "disk" and current.version_id == mem.versions()[0].id


def test_invalid_utf8_on_disk_is_reported_and_never_lost(mem: MemoryFile, tmp_path: Path) -> None:
    mem.write("- a", "user")
    bad = b"- caf\xe9 (latin-1)\n"
    mem.path.write_bytes(bad)
    with pytest.raises(MemoryFileError, match="not valid UTF-8"):
        mem.read()
    # Automatic writers refuse and leave the bytes alone.
    with pytest.raises(MemoryFileError):
        mem.append_fact("b")
    with pytest.raises(MemoryFileError):
        mem.write("- from dream", "dream")
    assert mem.path.read_bytes() == bad
    # The user's own save keeps the damaged file next to the new one.
    mem.write("- fixed", "user")
    kept = list(tmp_path.glob("MEMORY.md.invalid-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == bad
    assert mem.read().text == "- fixed\n"


def test_a_crash_between_file_and_version_row_is_recovered_as_a_disk_version(mem: MemoryFile) -> None:
    mem.write("- a", "user")
    # What a crash after the atomic rename but before the version row leaves behind:
    mem.path.write_text("- a\n- b\n", encoding="utf-8")
    reopened = MemoryFile(open_database(mem.path.parent / "db.sqlite3"), mem.path.parent)
    assert reopened.read().text == "- a\n- b\n"
    assert [v.author for v in reopened.versions()] == ["disk", "user"]


def test_the_owner_step_keeps_the_shared_memorys_rows_and_forgotten_lines(tmp_path: Path) -> None:
    """Issue 38's step (an `owner` per row, tombstones unique per owner) on a database written
    before it: every old row stays the shared memory's."""
    import dataclasses

    from app.api.plugins import PLUGINS
    from app.memory.explicit import MemoryRepository
    from app.memory.provenance import Tombstones

    before = [
        dataclasses.replace(p, migrations=p.migrations[:2]) if p.name == "memory" else p for p in PLUGINS
    ]
    # Rows as the code before the step wrote them.
    with open_database(tmp_path / "db.sqlite3", before) as db, db.transaction() as conn:
        conn.execute(
            "INSERT INTO memory_versions (author, note, text, sha256, created_at) VALUES (?,?,?,?,?)",
            ("user", "", "- old fact\n", sha256_text("- old fact\n"), "x"),
        )
        conn.execute(
            "INSERT INTO memory_tombstones (line_key, line, version_id, created_at) VALUES (?,?,?,?)",
            ("gone", "gone", 1, "x"),
        )
    with open_database(tmp_path / "db.sqlite3") as db:
        assert db.part_version("memory") == 3
        (tmp_path / "MEMORY.md").write_text("- old fact\n", encoding="utf-8")
        assert MemoryFile(db, tmp_path).read().version_id == 1  # the file is its newest version
        assert [v.author for v in MemoryFile(db, tmp_path).versions()] == ["user"]
        assert MemoryFile(db, tmp_path, "a1").versions() == []
        assert [t.line for t in Tombstones(db).entries()] == ["gone"]
        Tombstones(db, "a1").add(["gone"], None)  # the same line forgotten by an agent: its own row
        assert len(Tombstones(db, "a1").entries()) == 1 and len(Tombstones(db).entries()) == 1
        MemoryRepository(db, "a1").add("agent row")
        assert MemoryRepository(db).count() == 0 and MemoryRepository(db, "a1").count() == 1
