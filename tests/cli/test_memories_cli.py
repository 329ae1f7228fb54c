"""`cashcode memories …`, `cashcode memory …` in real subprocesses (no terminal: writes need --yes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import base_env, cashcode


@pytest.fixture
def plain_env(home: Path) -> dict[str, str]:
    return base_env(home)


def test_add_list_search_update_delete(plain_env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    refused = cashcode("memories", "add", "Use uv for Python", "--tag", "python", env=plain_env, cwd=ws)
    assert refused.returncode == 1 and "Not added" in refused.stdout and "--yes" in refused.stderr
    assert json.loads(cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout) == []

    added = cashcode(
        "memories",
        "add",
        "Use uv for Python",
        "--tag",
        "python",
        "--tag",
        "tooling",
        "--yes",
        env=plain_env,
        cwd=ws,
    )
    assert added.returncode == 0, added.stderr
    memory_id = added.stdout.strip().splitlines()[-1]
    assert len(memory_id) == 36 and memory_id in added.stdout.splitlines()[0]  # the shown id is the stored id
    cashcode("memories", "add", "Tea, no sugar", "--yes", env=plain_env, cwd=ws)

    items = json.loads(cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout)
    keys = ("asked_by", "content", "created_at", "id", "tags", "updated_at")
    assert {tuple(sorted(i)) for i in items} == {keys}
    assert {i["asked_by"] for i in items} == {"command: cashcode memories add"}  # its provenance
    found = json.loads(
        cashcode("memories", "search", "uv", "--tag", "python", "--json", env=plain_env, cwd=ws).stdout
    )
    assert [(f["id"], f["tags"]) for f in found] == [(memory_id, ["python", "tooling"])]
    none = json.loads(cashcode("memories", "search", "uv", "tea", "--json", env=plain_env, cwd=ws).stdout)
    assert none == []

    unknown = cashcode("memories", "delete", "zzzz", "--yes", env=plain_env, cwd=ws)
    assert unknown.returncode == 1 and "No memory id starts with 'zzzz'" in unknown.stderr
    asked = cashcode("memories", "update", memory_id, "--content", "Use uv sync", env=plain_env, cwd=ws)
    assert asked.returncode == 1 and "before:" in asked.stdout and "Use uv sync" in asked.stdout
    updated = cashcode(
        "memories",
        "update",
        memory_id,
        "--content",
        "Use uv sync",
        "--tag",
        "python",
        "--yes",
        env=plain_env,
        cwd=ws,
    )
    assert updated.returncode == 0, updated.stderr
    found = json.loads(cashcode("memories", "search", "sync", "--json", env=plain_env, cwd=ws).stdout)
    assert [(f["content"], f["tags"]) for f in found] == [("Use uv sync", ["python"])]
    deleted = cashcode("memories", "delete", memory_id[:8], "--yes", env=plain_env, cwd=ws)  # a unique start
    assert deleted.returncode == 0 and memory_id in deleted.stdout
    assert len(json.loads(cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout)) == 1


def test_memory_show_versions_and_revert(plain_env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    data = Path(plain_env["CASHCODE_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    (data / "MEMORY.md").write_text("- first\n", encoding="utf-8")
    assert cashcode("memory", "show", env=plain_env, cwd=ws).stdout == "- first\n"  # no database yet
    written = cashcode("memories", "add", "a write creates the database", "--yes", env=plain_env, cwd=ws)
    assert written.returncode == 0
    assert cashcode("memory", "show", env=plain_env, cwd=ws).stdout == "- first\n"  # recorded now
    (data / "MEMORY.md").write_text("- second\n", encoding="utf-8")
    listed = cashcode("memory", "versions", env=plain_env, cwd=ws)
    assert listed.returncode == 0 and "disk" in listed.stdout
    assert cashcode("memory", "show", env=plain_env, cwd=ws).stdout == "- second\n"
    reverted = cashcode("memory", "revert", "1", env=plain_env, cwd=ws)
    assert reverted.returncode == 0, reverted.stderr
    assert (data / "MEMORY.md").read_text(encoding="utf-8") == "- first\n"
    missing = cashcode("memory", "revert", "99", env=plain_env, cwd=ws)
    assert missing.returncode == 1 and "not found" in missing.stderr

    (data / "MEMORY.md").write_bytes(b"\xff\xfe broken")
    broken = cashcode("memory", "show", env=plain_env, cwd=ws)
    assert broken.returncode == 1 and "not valid UTF-8" in broken.stderr
    assert (data / "MEMORY.md").read_bytes() == b"\xff\xfe broken"


def test_dream_now_prints_what_changed(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    ws = home / "ws"
    fake_llm.script({"text": "Nice cat."})
    asked = cashcode("ask", "My cat is called Miso.", env=env, cwd=ws)
    assert asked.returncode == 0, asked.stderr
    fake_llm.script({"text": "ADD: cat Miso"}, {"text": "- Has a cat called Miso"})
    dreamed = cashcode("dream", "--now", env=env, cwd=ws)
    assert dreamed.returncode == 0, dreamed.stderr
    assert "MEMORY.md updated." in dreamed.stdout and "+- Has a cat called Miso" in dreamed.stdout
    again = cashcode("dream", "--now", env=env, cwd=ws)
    assert again.returncode == 0 and "No new chat history" in again.stdout
    assert cashcode("memory", "show", env=env, cwd=ws).stdout == "- Has a cat called Miso\n"


def test_memory_why_forget_forgotten_and_unforget(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    """Issue 39: `memory why` names the chat and message a Dream line came from; `memory forget`
    asks first (no terminal: nothing changes without --yes) and the fact is listed as forgotten."""
    ws = home / "ws"
    fake_llm.script({"text": "Noted."})
    assert cashcode("ask", "My dentist is Dr Okafor", env=env, cwd=ws).returncode == 0
    chat_id = cashcode("sessions", "list", env=env, cwd=ws).stdout.split()[0]
    fake_llm.script({"text": "ADD: dentist"}, {"text": "- The user's dentist is Dr Okafor"})
    assert cashcode("dream", "--now", env=env, cwd=ws).returncode == 0
    why = cashcode("memory", "why", "okafor", env=env, cwd=ws)
    assert why.returncode == 0, why.stderr
    assert why.stdout.splitlines()[0] == "- The user's dentist is Dr Okafor"
    assert "dream, 20" in why.stdout and f"chat {chat_id}, message 1" in why.stdout

    refused = cashcode("memory", "forget", "okafor", env=env, cwd=ws)
    assert refused.returncode == 1 and "--yes" in refused.stderr and "Dr Okafor" in refused.stdout
    assert "Okafor" in cashcode("memory", "show", env=env, cwd=ws).stdout
    forgot = cashcode("memory", "forget", "okafor", "--yes", env=env, cwd=ws)
    assert forgot.returncode == 0, forgot.stderr
    assert "Okafor" not in cashcode("memory", "show", env=env, cwd=ws).stdout
    listed = cashcode("memory", "forgotten", env=env, cwd=ws)
    assert "The user's dentist is Dr Okafor" in listed.stdout
    number = listed.stdout.split()[0]
    missing = cashcode("memory", "why", "okafor", env=env, cwd=ws)
    assert missing.returncode == 1 and "No line of MEMORY.md contains 'okafor'" in missing.stderr
    back = cashcode("memory", "unforget", number, env=env, cwd=ws)
    assert back.returncode == 0 and "Dream may write it again" in back.stdout
    assert cashcode("memory", "forgotten", env=env, cwd=ws).stdout == "Nothing is forgotten.\n"


def test_add_at_a_terminal_defaults_to_yes(plain_env: dict[str, str], home: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.cli.test_interrupts import OutputWatcher

    ws = home / "ws"
    primary, secondary = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "memories", "add", "Prefers dark roast"],
        env=plain_env,
        cwd=ws,
        stdin=secondary,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(secondary)
    assert proc.stdout is not None
    with proc:
        out = OutputWatcher(proc.stdout)
        out.wait_for("[Y/n]")
        os.write(primary, b"\n")  # Enter: the default, Yes
        assert proc.wait(timeout=30) == 0
    os.close(primary)
    items = json.loads(cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout)
    assert [i["content"] for i in items] == ["Prefers dark roast"]
    empty = cashcode("memories", "delete", "", "--yes", env=plain_env, cwd=ws)  # no id at all
    assert empty.returncode == 1 and json.loads(
        cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout
    )


def _v1_database(path: Path) -> None:
    """A database an early CashCode wrote: the old single-list layout at version 1 (chats only)."""
    from app.store.db import Database
    from app.store.migrations import MIGRATIONS

    path.parent.mkdir(parents=True, exist_ok=True)
    with Database(path, migrations=MIGRATIONS[:1]) as db, db.transaction() as conn:
        conn.execute("DROP TABLE schema_parts")
        conn.execute("PRAGMA user_version = 1")


def test_reads_never_create_or_convert_the_database(plain_env: dict[str, str], home: Path) -> None:
    """Issue 39 item 5: listing, searching and showing on an empty folder create no database;
    on a copy of a v1 database they leave the file byte-identical and say which version opens it."""
    ws = home / "ws"
    db = home / "data" / "cashcode.sqlite3"
    reads = (("memories", "list"), ("memories", "search", "tea"), ("memory", "show"), ("memory", "versions"))
    for args in reads:
        result = cashcode(*args, env=plain_env, cwd=ws)
        assert result.returncode == 0, (args, result.stderr)
    assert not db.exists()

    _v1_database(db)
    before = db.read_bytes()
    older_reads = (
        ("memories", "list"),
        ("memories", "search", "tea"),
        ("memory", "show"),
        ("sessions", "list"),
        ("sessions", "export", "x"),
    )
    for args in older_reads:
        result = cashcode(*args, env=plain_env, cwd=ws)
        assert result.returncode == 1, (args, result.stdout)
        assert "older CashCode (schema version 1)" in result.stderr and "opens it as it is" in result.stderr
        assert db.read_bytes() == before
    # A write converts it, after which the reads work.
    assert cashcode("memories", "add", "Tea, no sugar", "--yes", env=plain_env, cwd=ws).returncode == 0
    assert "Tea, no sugar" in cashcode("memories", "list", env=plain_env, cwd=ws).stdout


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ((), "say what to search for: give at least one word or tag"),
        (("   ",), "a search word must not be blank"),
        (("x" * 501,), "a search is limited to 500 characters"),
    ],
)
def test_an_empty_blank_or_too_long_search_is_an_error(
    plain_env: dict[str, str], home: Path, words: tuple[str, ...], message: str
) -> None:
    ws = home / "ws"
    without_db = cashcode("memories", "search", *words, env=plain_env, cwd=ws)
    assert without_db.returncode == 1 and message in without_db.stderr
    cashcode("memories", "add", "Tea, no sugar", "--yes", env=plain_env, cwd=ws)
    with_db = cashcode("memories", "search", *words, env=plain_env, cwd=ws)
    assert with_db.returncode == 1 and message in with_db.stderr and "Tea" not in with_db.stdout
