"""CLI failures are one clear line (never a traceback) and name the real cause."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.cli.errors import describe
from app.store.errors import StorageFull, StorageUnwritable, StoreError, classify_sqlite_error

from .conftest import base_env, cashcode


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cashcode: error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("command", [["sessions", "list"], ["ask", "hi"]])
def test_a_damaged_database_is_one_line(command: list[str], env: dict[str, str], home: Path) -> None:
    (home / "data").mkdir()
    (home / "data" / "cashcode.sqlite3").write_bytes(b"this is not a database" * 100)
    line = one_error_line(cashcode(*command, env=env, cwd=home / "ws"))
    assert "damaged" in line
    assert (home / "data" / "cashcode.sqlite3").read_bytes().startswith(b"this is not")


def test_a_newer_database_is_one_line_and_left_alone(env: dict[str, str], home: Path) -> None:
    (home / "data").mkdir()
    db = home / "data" / "cashcode.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99999")
    line = one_error_line(cashcode("sessions", "list", env=env, cwd=home / "ws"))
    assert "newer" in line and "damaged" not in line


def test_a_data_folder_that_cannot_be_created_is_one_line(home: Path) -> None:
    env = base_env(home)
    blocker = home / "a-file"
    blocker.write_text("x")
    env["CASHCODE_DATA_DIR"] = str(blocker / "data")
    # A command that must write (`sessions list` with no database answers without the folder).
    line = one_error_line(cashcode("memories", "add", "x", "--yes", env=env, cwd=home / "ws"))
    assert str(blocker) in line


def test_a_broken_pipe_ends_quietly(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "config", "show"],
        env=env,
        cwd=home / "ws",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head` exiting before the command writes
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in stderr and "Exception ignored" not in stderr


def _sqlite_error(code: int, text: str) -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError(text)
    exc.sqlite_errorcode = code
    return exc


def test_a_full_disk_or_read_only_folder_is_never_called_damage() -> None:
    full = classify_sqlite_error(_sqlite_error(13, "database or disk is full"), "/d/db", "write")
    assert isinstance(full, StorageFull) and "full" in str(full) and "damaged" not in str(full)
    for code, text in ((8, "attempt to write a readonly database"), (14, "unable to open database file")):
        err = classify_sqlite_error(_sqlite_error(code, text), "/d/db", "open")
        assert isinstance(err, StorageUnwritable) and "damaged" not in str(err)
    damaged = classify_sqlite_error(_sqlite_error(26, "file is not a database"), "/d/db", "read")
    assert type(damaged) is StoreError and "damaged" in str(damaged)
    assert "disk is full" in describe(OSError(28, "No space left on device", "/d/x"))
    assert "permissions" in describe(PermissionError(13, "Permission denied", "/d"))


def test_opening_a_database_in_a_missing_folder_is_not_damage(tmp_path: Path) -> None:
    from app.store.db import Database

    with pytest.raises(StoreError) as caught:
        Database(tmp_path / "missing" / "db.sqlite3", migrations=())
    assert "damaged" not in str(caught.value)


@pytest.mark.parametrize("kind", ["dev_zero", "fifo"])
def test_importing_a_device_or_fifo_is_refused_at_once(kind: str, home: Path) -> None:
    import os

    if kind == "fifo":
        target = home / "skill.zip"
        os.mkfifo(target)
    else:
        target = Path("/dev/zero")
    result = cashcode("skills", "import", str(target), env=base_env(home), cwd=home / "ws", timeout=30)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "not a regular file" in result.stderr


def test_ask_answered_by_an_html_page_exits_1_with_one_line_and_stores_nothing(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    page = "<html><head><title>Proxy login</title></head></html>"
    fake_llm.script(*[{"raw_body": page}] * 4)
    line = one_error_line(cashcode("ask", "hello", env=env, cwd=home / "ws"))
    assert "HTML page titled 'Proxy login'" in line
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert listed.returncode == 0 and "hello" not in listed.stdout


def test_a_killed_ask_leaves_no_empty_chat(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    import os
    import signal
    import time

    fake_llm.script({"text": "a slow answer " * 40, "chunk_size": 2, "delay_s": 0.2})
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "ask", "hello"],
        env=env,
        cwd=home / "ws",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not fake_llm.model_requests() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert fake_llm.model_requests(), "ask never reached the model"
        os.kill(proc.pid, signal.SIGKILL)  # mid-answer
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    db = home / "data" / "cashcode.sqlite3"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM chats").fetchone()[0] == 0


def test_ask_into_a_pipe_closed_early_ends_quietly(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    # `cashcode ask … | head -c 10`: the reader goes away while the answer is still streaming.
    fake_llm.script({"text": "streamed words " * 2000, "chunk_size": 5})
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "ask", "hello"],
        env=env,
        cwd=home / "ws",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr and "BrokenPipe" not in stderr
