"""Per-chat message counts and last activity (app/store/activity.py, app/store/visible.py)."""

from __future__ import annotations

from pathlib import Path

from app.contracts.capability import Migration
from app.contracts.messages import Message, ToolCall
from app.store.chats import ChatActivity, ChatRecord, ChatRepository, StoredMessage
from app.store.db import Database
from app.store.migrations import MIGRATIONS, _chat_activity


def _tool_turn(n: int) -> list[Message]:
    call = ToolCall(id=f"c{n}", name="read_file", arguments="{}")
    return [
        Message(role="user", content=f"q{n}"),
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", content="text", tool_call_id=call.id, name="read_file"),
        Message(role="assistant", content=f"a{n}"),
    ]


def _rows_counted(db: Database, chat_id: str) -> int:
    """The trigger-kept count of stored user/assistant rows (every branch)."""
    row = db.query("SELECT message_count FROM chat_activity WHERE chat_id = ?", (chat_id,))
    return int(row[0][0]) if row else 0


def test_turns_imports_and_deletions_keep_the_counts(db: Database, chats: ChatRepository) -> None:
    one, two, empty = chats.create("one"), chats.create("two"), chats.create("empty")
    first = chats.append_turn(one.id, "t1", _tool_turn(1))
    last = chats.append_turn(one.id, "t2", [Message(role="user", content="again")])
    chats.append_turn(two.id, "t1", [Message(role="user", content="hi")])
    got = chats.activity([one.id, two.id, empty.id])
    # Shown: q1, its answer (a tool call, its result and the final text are one answer), "again".
    assert got[one.id] == ChatActivity(message_count=3, last_message_at=last[-1].created_at)
    assert got[two.id].message_count == 1 and empty.id not in got
    assert first[0].created_at <= last[-1].created_at

    assert _rows_counted(db, one.id) == 4
    with db.transaction() as conn:  # rows removed past the repository: the row triggers follow
        conn.execute("DELETE FROM messages WHERE chat_id = ? AND role IN ('user', 'tool')", (one.id,))
    assert _rows_counted(db, one.id) == 2

    record = ChatRecord("00000000-0000-4000-8000-00000000000a", "imp", False, "2026-01-01", "2026-01-02")
    imported = chats.insert_imported(
        record,
        [StoredMessage(i + 1, "t1", m, f"2026-01-01T00:00:0{i}Z", i) for i, m in enumerate(_tool_turn(9))],
    )
    assert chats.activity([imported.id])[imported.id] == ChatActivity(2, "2026-01-01T00:00:03Z")

    chats.delete(one.id)
    assert one.id not in chats.activity()
    assert set(chats.activity()) == {two.id, imported.id}


def test_the_migration_backfills_existing_chats(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with Database(path) as made:
        repo = ChatRepository(made)
        chat = repo.create("old")
        stored = repo.append_turn(chat.id, "t1", _tool_turn(1))
        repo.create("no messages")
        _back_to_before(made, _chat_activity)
    with Database(path) as upgraded:
        activity = ChatRepository(upgraded).activity()
    assert activity == {chat.id: ChatActivity(2, stored[-1].created_at)}  # q1 and its answer


def _back_to_before(db: Database, step: Migration) -> None:
    """Make `db` what it was before store step `step`: the steps from there on undone."""
    with db.transaction() as conn:
        for trigger in ("chat_activity_insert", "chat_activity_delete", "chat_activity_move"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("DROP TABLE chat_activity")
        version = list(MIGRATIONS).index(step)
        conn.execute("UPDATE schema_parts SET version = ? WHERE name = 'store'", (version,))


def test_a_message_changing_role_or_chat_moves_its_count(db: Database, chats: ChatRepository) -> None:
    a, b = chats.create("a"), chats.create("b")
    chats.append_turn(a.id, "t1", _tool_turn(1))  # user, assistant, tool, assistant
    with db.transaction() as conn:
        conn.execute("UPDATE messages SET role = 'assistant' WHERE chat_id = ? AND role = 'tool'", (a.id,))
    assert _rows_counted(db, a.id) == 4
    with db.transaction() as conn:
        conn.execute("UPDATE messages SET chat_id = ? WHERE chat_id = ? AND cursor = 1", (b.id, a.id))
    assert _rows_counted(db, a.id) == 3 and _rows_counted(db, b.id) == 1
