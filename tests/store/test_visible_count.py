"""The chat list's "N messages" counts what the chat shows on its active path (issue 25 item 7,
app/store/visible.py): user messages and answers, not tool rows, system rows or other versions."""

from __future__ import annotations

import random
from pathlib import Path

from app.contracts.messages import Message, ToolCall
from app.store.chats import ChatRecord, ChatRepository, StoredMessage
from app.store.db import Database
from app.store.migrations import MIGRATIONS, _visible_count


def _shown(chats: ChatRepository, chat_id: str) -> int:
    """What the UI renders for the active path (frontend/src/model/transcript.ts): one entry per
    user message, one per run of a turn's answer rows; system rows are not sent to the UI."""
    entries, last_answer = 0, None
    for s in chats.path_messages(chat_id):
        role = s.message.role
        if role == "user":
            entries, last_answer = entries + 1, None
        elif role in ("assistant", "tool") and last_answer != s.turn_id:
            entries, last_answer = entries + 1, s.turn_id
    return entries


def _count(chats: ChatRepository, chat_id: str) -> int:
    return chats.activity_of(chat_id).message_count


def _tool_answer(n: int) -> list[Message]:
    call = ToolCall(id=f"c{n}", name="read_file", arguments="{}")
    return [
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", content="file text", tool_call_id=call.id, name="read_file"),
        Message(role="assistant", content=f"answer {n}"),
    ]


def test_tool_rows_system_rows_and_other_versions_are_not_counted(chats: ChatRepository) -> None:
    cid = chats.create("c").id
    chats.append_turn(
        cid, "t1", [Message(role="system", content="s"), Message(role="user", content="q1"), *_tool_answer(1)]
    )
    assert _count(chats, cid) == 2
    chats.append_turn(
        cid, "t2", [Message(role="user", content="q2"), Message(role="assistant", content="a2")]
    )
    assert _count(chats, cid) == 4  # 8 rows stored

    # Regenerate the last answer: version 2/2 replaces it on the path (still 4 shown).
    q2 = chats.path_messages(cid)[-2].cursor
    chats.append_turn(cid, "r1", [Message(role="assistant", content="a2 again")], parent=q2)
    assert _count(chats, cid) == 4 == _shown(chats, cid)

    # Edit the first question: a new path of two messages.
    chats.append_turn(
        cid,
        "e1",
        [Message(role="user", content="q1 edited"), Message(role="assistant", content="x")],
        parent=0,
    )
    assert _count(chats, cid) == 2 == _shown(chats, cid)

    # Back to the first version of the first question: its newest path (with "a2 again").
    chats.switch_branch(cid, 2)
    assert _count(chats, cid) == 4 == _shown(chats, cid)
    # The older answer of q2.
    chats.switch_branch(cid, q2 + 1)
    assert _count(chats, cid) == 4 == _shown(chats, cid)


def test_a_regenerated_answer_inside_a_tool_turn_keeps_the_count_exact(chats: ChatRepository) -> None:
    cid = chats.create("c").id
    stored = chats.append_turn(cid, "t1", [Message(role="user", content="q"), *_tool_answer(1)])
    # Continue from the tool result (the middle of the answer): the answer is still one entry.
    chats.append_turn(cid, "t2", [Message(role="assistant", content="other ending")], parent=stored[2].cursor)
    assert _count(chats, cid) == 3 == _shown(chats, cid)  # the new turn's rows are their own answer
    chats.switch_branch(cid, stored[3].cursor)
    assert _count(chats, cid) == 2 == _shown(chats, cid)


def test_random_edits_regenerates_and_switches_match_what_is_shown(chats: ChatRepository) -> None:
    rng = random.Random(25)
    cid = chats.create("c").id
    for step in range(120):
        path = chats.path_messages(cid)
        users = [s for s in path if s.message.role == "user"]
        action = rng.random()
        if not path or action < 0.45:
            chats.append_turn(
                cid, f"s{step}", [Message(role="user", content="q"), *_tool_answer(step)[rng.randrange(3) :]]
            )
        elif action < 0.65:  # regenerate: a new answer under a user message of the path
            chats.append_turn(
                cid, f"r{step}", [Message(role="assistant", content="again")], parent=rng.choice(users).cursor
            )
        elif action < 0.8:  # edit: a new user message under a user message's parent
            chats.append_turn(
                cid,
                f"e{step}",
                [Message(role="user", content="edit")],
                parent=rng.choice(users).parent_cursor,
            )
        else:
            chats.switch_branch(cid, rng.randrange(1, chats.last_cursor(cid) + 1))
        assert _count(chats, cid) == _shown(chats, cid), f"after step {step}"


def test_an_imported_tree_counts_its_active_path(chats: ChatRepository) -> None:
    msgs = [
        StoredMessage(1, "t1", Message(role="user", content="q"), "2026-01-01T00:00:01Z", 0),
        StoredMessage(2, "t1", Message(role="assistant", content="a"), "2026-01-01T00:00:02Z", 1),
        StoredMessage(3, "t2", Message(role="assistant", content="b"), "2026-01-01T00:00:03Z", 1),
        StoredMessage(4, "t3", Message(role="user", content="q2"), "2026-01-01T00:00:04Z", 2),
    ]
    record = ChatRecord("00000000-0000-4000-8000-00000000000b", "imp", False, "2026-01-01", "2026-01-02")
    chats.insert_imported(record, msgs, leaf=3)
    assert _count(chats, record.id) == 2  # q and the second answer; "q2" is under the first
    chats.switch_branch(record.id, 4)
    assert _count(chats, record.id) == 3


def test_the_migration_counts_existing_chats_with_and_without_branches(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with Database(path) as made:
        repo = ChatRepository(made)
        linear, branched = repo.create("linear").id, repo.create("branched").id
        repo.append_turn(linear, "t1", [Message(role="user", content="q"), *_tool_answer(1)])
        repo.append_turn(
            branched, "t1", [Message(role="user", content="q"), Message(role="assistant", content="a")]
        )
        repo.append_turn(branched, "t2", [Message(role="assistant", content="b")], parent=1)
        repo.append_turn(branched, "t3", [Message(role="assistant", content="c")], parent=1)
        repo.switch_branch(branched, 3)
        with made.transaction() as conn:  # the database as it was before the step
            conn.execute("ALTER TABLE chat_activity DROP COLUMN visible_count")
            conn.execute(
                "UPDATE schema_parts SET version = ? WHERE name = 'store'",
                (list(MIGRATIONS).index(_visible_count),),
            )
        # Before the step the list counted stored rows: 4 here, though the chat shows 2.
        assert made.query("SELECT message_count FROM chat_activity WHERE chat_id = ?", (branched,))[0][0] == 4
    with Database(path) as upgraded:
        repo = ChatRepository(upgraded)
        assert _count(repo, linear) == 2
        assert _count(repo, branched) == 2 == _shown(repo, branched)
        assert repo.leaf(branched) == 3
