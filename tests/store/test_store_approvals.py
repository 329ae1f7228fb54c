from __future__ import annotations

from pathlib import Path

import pytest

from app.contracts.tools import ApprovalLedger, GrantKey
from app.store.approvals import SqliteApprovalLedger
from app.store.db import Database
from app.store.ids import new_id

GIT_STATUS = GrantKey("exec", ("/usr/bin/git", "status"), workspace="/home/u/proj")


@pytest.fixture
def ledger(db: Database) -> SqliteApprovalLedger:
    return SqliteApprovalLedger(db)


def test_the_sqlite_ledger_satisfies_the_approval_ledger_protocol(ledger: SqliteApprovalLedger) -> None:
    as_protocol: ApprovalLedger = ledger
    assert not as_protocol.has(GIT_STATUS)


def test_an_added_grant_matches_only_the_exact_key(ledger: SqliteApprovalLedger) -> None:
    grant = ledger.add(GIT_STATUS)

    assert ledger.has(GIT_STATUS)
    assert grant.key == GIT_STATUS.key and grant.kind == "exec" and grant.workspace == "/home/u/proj"
    assert not ledger.has(GrantKey("exec", ("status", "/usr/bin/git"), workspace="/home/u/proj"))
    assert not ledger.has(GrantKey("exec", ("/usr/bin/git", "status", "-s"), workspace="/home/u/proj"))
    assert not ledger.has(GrantKey("exec", ("/usr/bin/git",), workspace="/home/u/proj"))
    assert not ledger.has(GrantKey("exec", ("/usr/bin/git", "status"), workspace="/home/u/other"))
    assert not ledger.has(GrantKey("mcp", ("/usr/bin/git", "status"), workspace="/home/u/proj"))


def test_adding_the_same_key_twice_keeps_one_grant(ledger: SqliteApprovalLedger) -> None:
    chat_id = new_id()
    first = ledger.add(GIT_STATUS, chat_id=chat_id)
    second = ledger.add(GrantKey("exec", ("/usr/bin/git", "status"), workspace="/home/u/proj"))

    assert first == second and first.chat_id == chat_id
    assert ledger.list() == [first]


def test_revoking_a_grant_removes_only_that_grant(ledger: SqliteApprovalLedger) -> None:
    a = ledger.add(GIT_STATUS)
    b = ledger.add(GrantKey("mcp", ("server", "tool")))

    assert ledger.revoke(a.id)
    assert not ledger.revoke(a.id)
    assert not ledger.has(GIT_STATUS)
    assert ledger.list() == [b]


def test_grants_with_unusual_characters_round_trip(ledger: SqliteApprovalLedger) -> None:
    key = GrantKey("exec", ("echo", 'a "quoted" arg', "ünïcode", "", "x\ny"))
    ledger.add(key)
    assert ledger.has(key)
    assert ledger.list()[0].key == key.key


def test_an_empty_grant_key_is_refused(ledger: SqliteApprovalLedger) -> None:
    with pytest.raises(ValueError):
        ledger.add(GrantKey("exec", ()))


def test_grants_survive_reopening_the_database(db_path: Path) -> None:
    with Database(db_path) as db:
        grant = SqliteApprovalLedger(db).add(GIT_STATUS)
    with Database(db_path) as db:
        ledger = SqliteApprovalLedger(db)
        assert ledger.has(GIT_STATUS)
        assert ledger.list() == [grant]


def test_an_imported_grant_covers_nothing_until_enabled(ledger: SqliteApprovalLedger) -> None:
    key = GrantKey(kind="exec", key=("git", "status"), workspace="/w")
    imported = ledger.add(key, enabled=False)
    assert not imported.enabled and not ledger.has(key) and ledger.find(key) == imported
    assert ledger.enable(imported.id) and ledger.has(key)


def test_always_at_a_prompt_enables_an_imported_grant_of_the_same_key(ledger: SqliteApprovalLedger) -> None:
    key = GrantKey(kind="exec", key=("git", "log"), workspace="/w")
    ledger.add(key, enabled=False)
    assert ledger.add(key).enabled and ledger.has(key)
