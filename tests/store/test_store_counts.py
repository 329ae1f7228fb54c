"""Per-chat counters kept by a trigger agree with counting the rows, after turns, imports,
direct inserts, deletion and the migration of an older database."""

from __future__ import annotations

from pathlib import Path

from app.core.messages import Message
from app.store.chats import ChatActivity, ChatRecord, ChatRepository, StoredMessage
from app.store.db import Database
from app.store.migrations import MIGRATIONS, Migration

OLD = "00000000-0000-4000-8000-000000000001"


def before(step: str) -> tuple[Migration, ...]:
    """The migrations older than `step` (by name: the merge may renumber them)."""
    names = [getattr(m, "__name__", "") for m in MIGRATIONS]
    return tuple(MIGRATIONS[: names.index(step)])


def _agree(chats: ChatRepository, chat_id: str) -> ChatActivity:
    counted = chats.activity([chat_id]).get(chat_id, ChatActivity(0, None))
    assert chats.activity_of(chat_id) == counted
    return counted


def test_counters_follow_turns_imports_and_deletes(tmp_path: Path) -> None:
    with Database(tmp_path / "c.sqlite3") as db:
        chats = ChatRepository(db)
        cid = chats.create().id
        assert _agree(chats, cid) == ChatActivity(0, None)
        chats.append_turn(
            cid,
            "t1",
            [
                Message(role="user", content="q"),
                Message(role="tool", content="r", tool_call_id="c", name="x"),
                Message(role="assistant", content="a"),
            ],
        )
        assert _agree(chats, cid).message_count == 2
        rec = ChatRecord(OLD, "imported", False, "2026-01-01", "2026-01-01")
        chats.insert_imported(rec, [StoredMessage(1, "t", Message(role="user", content="x"), "2026-02-02")])
        assert _agree(chats, OLD) == ChatActivity(1, "2026-02-02")
        chats.delete(OLD)
        assert chats.activity_of(OLD) == ChatActivity(0, None)


def test_the_migration_counts_existing_messages(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with Database(path, migrations=before("_chat_counts")) as old, old.transaction() as conn:
        conn.execute(
            "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?, 't', 0, 'x', 'x')",
            (OLD,),
        )
        conn.executemany(
            "INSERT INTO messages (chat_id, cursor, turn_id, role, content, created_at)"
            " VALUES (?,?,'t',?,'m',?)",
            [(OLD, i, ("user", "assistant", "tool")[i % 3], f"2026-01-{i:02d}") for i in range(1, 10)],
        )
    with Database(path) as db:
        assert _agree(ChatRepository(db), OLD) == ChatActivity(6, "2026-01-09")
