from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from app.api.plugins import PLUGINS, open_database
from app.knowledge.plugin import PLUGIN as KNOWLEDGE
from app.store.db import PARTS_LAYOUT, Database, SchemaPart
from app.store.errors import SchemaTooNew, StoreError
from app.store.migrations import LATEST_VERSION, LEGACY_STEPS, MIGRATIONS

INSERT_CHAT = "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?, ?, 0, 'x', 'x')"


def test_a_fresh_database_is_at_the_latest_schema_version_with_wal_and_foreign_keys(db_path: Path) -> None:
    with open_database(db_path) as db:
        assert db.schema_version == LATEST_VERSION == len(MIGRATIONS)
        assert db.query("PRAGMA journal_mode")[0][0] == "wal"
        assert db.query("PRAGMA foreign_keys")[0][0] == 1
        assert db.query("PRAGMA synchronous")[0][0] == 1  # NORMAL
        assert db.query("PRAGMA busy_timeout")[0][0] > 0
        tables = {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"chats", "messages", "approval_grants", "usage", "skill_activations"} <= tables


def test_reopening_a_database_keeps_its_data_and_version(db_path: Path) -> None:
    with Database(db_path) as db, db.transaction() as conn:
        conn.execute(INSERT_CHAT, ("c", "t"))
    for _ in range(2):
        with Database(db_path) as db:
            assert db.schema_version == LATEST_VERSION
            assert db.query("SELECT id FROM chats")[0][0] == "c"


def test_a_database_from_a_newer_schema_is_refused_and_left_untouched(db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE future (x)")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = db_path.read_bytes()

    with pytest.raises(SchemaTooNew, match="newer"):
        Database(db_path)

    assert db_path.read_bytes() == before
    assert not Path(f"{db_path}-wal").exists()


def test_a_garbage_file_is_refused_with_a_clear_error_and_left_byte_identical(db_path: Path) -> None:
    garbage = b"this is not a database\n" * 500
    db_path.write_bytes(garbage)

    with pytest.raises(StoreError, match="damaged or not a CashCode database") as err:
        Database(db_path)

    assert str(db_path) in str(err.value)
    assert db_path.read_bytes() == garbage


def test_a_failing_migration_changes_nothing_and_keeps_the_previous_version(db_path: Path) -> None:
    Database(db_path).close()
    broken = (*MIGRATIONS, "CREATE TABLE extra (x);\nTHIS IS NOT SQL;")

    with pytest.raises(StoreError):
        Database(db_path, migrations=broken)

    with Database(db_path) as db:
        assert db.schema_version == LATEST_VERSION
        names = {r[0] for r in db.query("SELECT name FROM sqlite_master")}
    assert "extra" not in names


def test_a_new_migration_is_applied_on_the_next_open(db_path: Path) -> None:
    Database(db_path).close()
    with Database(db_path, migrations=(*MIGRATIONS, "CREATE TABLE extra (x);")) as db:
        assert db.schema_version == LATEST_VERSION + 1
        assert db.query("SELECT count(*) FROM extra")[0][0] == 0


def test_a_database_in_a_missing_folder_raises_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        Database(tmp_path / "nope" / "x.sqlite3")


def test_a_failed_transaction_is_rolled_back(db: Database) -> None:
    with pytest.raises(RuntimeError), db.transaction() as conn:
        conn.execute(INSERT_CHAT, ("c", "t"))
        raise RuntimeError("boom")
    assert db.query("SELECT count(*) FROM chats")[0][0] == 0


@pytest.mark.parametrize("content", [b"hello", b"SQLite format 3\x00" + b"\xff" * 200])
def test_short_or_damaged_files_are_refused_and_left_byte_identical(db_path: Path, content: bytes) -> None:
    db_path.write_bytes(content)
    with pytest.raises(StoreError):
        Database(db_path)
    assert db_path.read_bytes() == content


def test_a_truncated_database_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    good = tmp_path / "good.sqlite3"
    with Database(good) as db, db.transaction() as conn:
        conn.executemany(
            INSERT_CHAT, [(str(i), "t" * 500) for i in range(200)]
        )
    conn = sqlite3.connect(good)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    truncated = tmp_path / "truncated.sqlite3"
    truncated.write_bytes(good.read_bytes()[: 4096 * 3])
    before = truncated.read_bytes()

    with pytest.raises(StoreError):
        Database(truncated)

    assert truncated.read_bytes() == before


# ---- schema parts: each capability's steps, versioned under its name --------------------------


def test_every_capability_part_is_recorded_at_its_latest_step(db_path: Path) -> None:
    with open_database(db_path) as db:
        for plugin in PLUGINS:
            assert db.part_version(plugin.name) == len(plugin.migrations), plugin.name
        assert db.query("PRAGMA user_version")[0][0] == PARTS_LAYOUT


def test_a_database_of_the_old_single_list_layout_is_converted_without_rerunning_steps(db_path: Path) -> None:
    # The old layout: the same steps in one list, user_version = how many ran (all 8 here). Only
    # the capabilities of that list had tables then (later ones, e.g. knowledge, are new parts).
    # ... and each of them only the steps it had then (memory's provenance step came later).
    had = {name: sum(1 for n, _ in LEGACY_STEPS if n == name) for name, _ in LEGACY_STEPS}
    legacy = [
        dataclasses.replace(p, migrations=p.migrations[: had[p.name]]) for p in PLUGINS if p.name in had
    ]
    with open_database(db_path, legacy) as db, db.transaction() as conn:
        conn.execute(INSERT_CHAT, ("c", "kept"))
        conn.execute("DROP TABLE schema_parts")
        conn.execute("PRAGMA user_version = 8")
    with open_database(db_path) as db:  # would fail with "table exists" if a step ran again
        assert db.query("SELECT title FROM chats")[0][0] == "kept"
        assert db.part_version("store") == LATEST_VERSION
        # Its activations step of the old list is kept; the later MCP Apps step runs.
        assert db.part_version("mcp") == 2
        assert db.query("SELECT COUNT(*) FROM mcp_app_calls")[0][0] == 0
        # Its step of the old list is kept (not re-run); the later `done_with_errors` step runs.
        assert db.part_version("observability") == 2
        assert db.part_version("knowledge") == len(KNOWLEDGE.migrations)  # a new part: created now


def test_an_old_layout_database_gets_only_the_steps_it_missed(db_path: Path) -> None:
    # Version 2 of the old list = the store's first step and the import records.
    legacy = Database(db_path, migrations=MIGRATIONS[:1], parts=[SchemaPart("import", PLUGINS[2].migrations)])
    with legacy, legacy.transaction() as conn:
        conn.execute("DROP TABLE schema_parts")
        conn.execute("PRAGMA user_version = 2")
    with open_database(db_path) as db:
        assert db.part_version("store") == LATEST_VERSION
        assert db.part_version("memory") == 3  # its provenance (issue 39) and owner (38) steps run too
        assert db.has_table("traces") and db.has_table("import_records")


def test_a_new_capability_adds_its_tables_to_an_existing_database(db_path: Path) -> None:
    open_database(db_path).close()
    part = SchemaPart("extra", ("CREATE TABLE extra_things (x);", "CREATE INDEX extra_x ON extra_things(x);"))
    with Database(db_path, parts=[part]) as db:
        assert db.part_version("extra") == 2 and db.has_table("extra_things")
    with Database(db_path, parts=[part]) as db:  # reopening runs nothing again
        assert db.part_version("extra") == 2


def test_a_part_newer_than_its_capability_is_refused_and_left_untouched(db_path: Path) -> None:
    part = SchemaPart("extra", ("CREATE TABLE extra_things (x);", "CREATE TABLE extra_more (y);"))
    Database(db_path, parts=[part]).close()
    before = db_path.read_bytes()
    with pytest.raises(SchemaTooNew, match="extra"):
        Database(db_path, parts=[SchemaPart("extra", part.steps[:1])])
    assert db_path.read_bytes() == before


def test_timestamps_of_another_form_are_rewritten_fixed_width(db_path: Path) -> None:
    # Issue 40 item 4: chats imported before the fix kept `…00Z`, which sorts above `…00.900000Z`.
    with Database(db_path, migrations=MIGRATIONS[:5]) as db, db.transaction() as conn:
        chat = "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?, ?, 0, ?, ?)"
        conn.execute(chat, ("a", "older", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z"))
        conn.execute(chat, ("b", "newer", "2026-03-01T10:00:00.900000Z", "2026-03-01T10:00:00.900000Z"))
        conn.execute(chat, ("c", "not a time", "x", "x"))
        conn.execute(
            "INSERT INTO messages (chat_id, cursor, turn_id, role, content, created_at)"
            " VALUES ('a', 1, 't', 'user', 'hi', '2026-03-01T12:00:00+02:00')"
        )
    with open_database(db_path) as db:
        assert db.part_version("store") == LATEST_VERSION
        rows = db.query("SELECT id, created_at, updated_at FROM chats ORDER BY updated_at DESC")
        assert [tuple(r) for r in rows] == [
            ("c", "x", "x"),  # not a date-time: left as it was
            ("b", "2026-03-01T10:00:00.900000Z", "2026-03-01T10:00:00.900000Z"),
            ("a", "2026-03-01T10:00:00.000000Z", "2026-03-01T10:00:00.000000Z"),
        ]
        assert db.query("SELECT created_at FROM messages")[0][0] == "2026-03-01T10:00:00.000000Z"
        activity = db.query("SELECT last_message_at FROM chat_activity WHERE chat_id = 'a'")
        assert activity[0][0] == "2026-03-01T10:00:00.000000Z"
