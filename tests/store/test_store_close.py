"""Closing the database while another thread reads (issue found by the full suite: the app's
close during a task scheduler's tick in a worker thread crashed sqlite with a segfault)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.store.errors import StoreError


def test_close_waits_for_a_read_running_in_another_thread_and_refuses_new_ones(tmp_path: Path) -> None:
    db = open_database(tmp_path / "cashcode.sqlite3")
    inside = threading.Event()
    seen: list[object] = []

    def read() -> None:
        try:
            with db.reading() as conn:
                inside.set()
                time.sleep(0.5)  # close() is called meanwhile
                seen.append(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])
        except Exception as exc:  # the old close() pulled the connection from under this read
            seen.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    assert inside.wait(5)
    db.close()
    reader.join(5)
    assert len(seen) == 1 and isinstance(seen[0], int), seen
    with pytest.raises(StoreError):
        db.query("SELECT 1")
