"""Per-chat message counts and last activity, kept by triggers (app/store/activity.py)."""

from __future__ import annotations

from pathlib import Path

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


def test_turns_imports_and_deletions_keep_the_counts(db: Database, chats: ChatRepository) -> None:
    one, two, empty = chats.create("one"), chats.create("two"), chats.create("empty")
    first = chats.append_turn(one.id, "t1", _tool_turn(1))
    last = chats.append_turn(one.id, "t2", [Message(role="user", content="again")])
    chats.append_turn(two.id, "t1", [Message(role="user", content="hi")])
    got = chats.activity([one.id, two.id, empty.id])
    assert got[one.id] == ChatActivity(message_count=4, last_message_at=last[-1].created_at)
    assert got[two.id].message_count == 1 and empty.id not in got
    assert first[0].created_at <= last[-1].created_at

    with db.transaction() as conn:  # e.g. a branch cut off: user and tool rows removed
        conn.execute("DELETE FROM messages WHERE chat_id = ? AND role IN ('user', 'tool')", (one.id,))
    assert chats.activity([one.id])[one.id].message_count == 2

    record = ChatRecord("00000000-0000-4000-8000-00000000000a", "imp", False, "2026-01-01", "2026-01-02")
    imported = chats.insert_imported(
        record,
        [StoredMessage(i + 1, "t1", m, f"2026-01-01T00:00:0{i}Z") for i, m in enumerate(_tool_turn(9))],
    )
    assert chats.activity([imported.id])[imported.id] == ChatActivity(3, "2026-01-01T00:00:03Z")

    chats.delete(one.id)
    assert one.id not in chats.activity()
    assert set(chats.activity()) == {two.id, imported.id}


def test_the_migration_backfills_existing_chats(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    before = MIGRATIONS[: list(MIGRATIONS).index(_chat_activity)]
    with Database(path, migrations=before) as old:
        repo = ChatRepository(old)
        chat = repo.create("old")
        stored = repo.append_turn(chat.id, "t1", _tool_turn(1))
        repo.create("no messages")
    with Database(path) as upgraded:
        activity = ChatRepository(upgraded).activity()
    assert activity == {chat.id: ChatActivity(3, stored[-1].created_at)}


def test_a_message_changing_role_or_chat_moves_its_count(db: Database, chats: ChatRepository) -> None:
    a, b = chats.create("a"), chats.create("b")
    chats.append_turn(a.id, "t1", _tool_turn(1))  # user, assistant, tool, assistant
    with db.transaction() as conn:
        conn.execute("UPDATE messages SET role = 'assistant' WHERE chat_id = ? AND role = 'tool'", (a.id,))
    assert chats.activity([a.id])[a.id].message_count == 4
    with db.transaction() as conn:
        conn.execute("UPDATE messages SET chat_id = ? WHERE chat_id = ? AND cursor = 1", (b.id, a.id))
    got = chats.activity([a.id, b.id])
    assert got[a.id].message_count == 3 and got[b.id].message_count == 1
