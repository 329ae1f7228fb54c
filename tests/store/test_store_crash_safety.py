"""A writer process killed with SIGKILL never leaves a half-written turn behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.store.chats import ChatRepository

pytestmark = pytest.mark.skipif(os.name != "posix", reason="needs kill -9")

# Turn n has 1 + n % 5 messages, and its id says so ("t<n>-<count>"), so the checker can tell a
# complete turn from a partial one without trusting the writer.
WRITER = textwrap.dedent(
    """
    import sys, time
    from app.contracts.messages import Message
    from app.store.chats import ChatRepository
    from app.api.plugins import open_database

    db_path, chat_id, pause_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
    db = open_database(db_path)
    repo = ChatRepository(db)
    n = len({s.turn_id for s in repo.stored_messages(chat_id)})
    current = [n]

    def trace(sql):
        # The chat's updated_at is written after all message rows, inside the transaction.
        if current[0] == pause_at and sql.startswith("UPDATE chats SET updated_at"):
            print("IN-TRANSACTION", flush=True)
            time.sleep(3600)

    db.set_trace(trace)
    while True:
        current[0] = n
        count = 1 + n % 5
        msgs = [Message(role="user" if i == 0 else "assistant", content=f"{n}:{i}" * 40)
                for i in range(count)]
        repo.append_turn(chat_id, f"t{n}-{count}", msgs)
        print(f"DONE {n}", flush=True)
        n += 1
    """
)


def _start(db_path: Path, chat_id: str, pause_at: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db_path), chat_id, str(pause_at)],
        stdout=subprocess.PIPE,
        text=True,
    )


def _wait_for(proc: subprocess.Popen[str], marker: str) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip() == marker:
            return
    raise AssertionError(f"writer exited (rc={proc.wait()}) before printing {marker!r}")


def _kill9(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    if proc.stdout is not None:
        proc.stdout.close()


def _assert_only_complete_turns(db_path: Path, chat_id: str) -> int:
    with open_database(db_path) as db:
        stored = ChatRepository(db).stored_messages(chat_id)
    assert [s.cursor for s in stored] == list(range(1, len(stored) + 1))
    turns: dict[str, list[int]] = {}
    for s in stored:
        turns.setdefault(s.turn_id, []).append(s.cursor)
    for turn_id, cursors in turns.items():
        expected = int(turn_id.rsplit("-", 1)[1])
        assert len(cursors) == expected, f"turn {turn_id} is incomplete: {cursors}"
        assert cursors == list(range(cursors[0], cursors[0] + expected))
    return len(turns)


def _new_chat(db_path: Path) -> str:
    with open_database(db_path) as db:
        return ChatRepository(db).create().id


def test_a_writer_killed_inside_the_transaction_leaves_no_trace_of_that_turn(db_path: Path) -> None:
    chat_id = _new_chat(db_path)
    proc = _start(db_path, chat_id, pause_at=7)
    _wait_for(proc, "IN-TRANSACTION")
    _kill9(proc)

    assert _assert_only_complete_turns(db_path, chat_id) == 7  # turns 0..6, not 7


def test_writers_killed_at_arbitrary_moments_leave_only_complete_turns(db_path: Path) -> None:
    chat_id = _new_chat(db_path)
    turns = 0
    for round_ in range(6):
        proc = _start(db_path, chat_id, pause_at=-1)
        # Kill right after a commit is reported: the writer is then usually mid-way through the
        # next turn. The marker index varies per round so the kill lands at different points.
        _wait_for(proc, f"DONE {turns + 3 + round_ * 7}")
        _kill9(proc)
        now = _assert_only_complete_turns(db_path, chat_id)
        assert now > turns
        turns = now
