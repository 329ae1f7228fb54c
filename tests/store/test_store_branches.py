"""Chats as trees on real SQLite: the active path read from the leaf backwards a page at a
time, siblings, switching, imports, the migration of linear chats, summaries per branch."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.contracts.capability import Migration
from app.contracts.messages import Message, ToolCall
from app.memory.summaries import ConsolidatedStore, SummaryRepository
from app.store.chats import ChatRecord, ChatRepository, StoredMessage
from app.store.db import Database
from app.store.errors import NotFound
from app.store.migrations import MIGRATIONS

IMP, BAD, OLD = (str(uuid.UUID(int=i)) for i in (1, 2, 3))


def before(step: str) -> tuple[Migration, ...]:
    """The migrations older than `step` (by name: the merge may renumber them)."""
    names = [getattr(m, "__name__", "") for m in MIGRATIONS]
    return tuple(MIGRATIONS[: names.index(step)])


def _pair(q: str, a: str) -> list[Message]:
    return [Message(role="user", content=q), Message(role="assistant", content=a)]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    d = open_database(tmp_path / "b.sqlite3")
    yield d
    d.close()


def _texts(stored: list[StoredMessage]) -> list[str]:
    return [s.message.content for s in stored]


def test_edits_and_regenerates_form_a_tree_read_from_the_leaf_backwards(db: Database) -> None:
    chats = ChatRepository(db)
    cid = chats.create("t").id
    for i in range(1, 4):
        chats.append_turn(cid, f"t{i}", _pair(f"q{i}", f"a{i}"))  # cursors 1..6
    # Edit q2 (cursor 3, parent 2): a new branch from cursor 2.
    edit = chats.append_turn(cid, "e1", _pair("q2 edited", "a2 edited"), parent=2)
    assert [s.cursor for s in edit] == [7, 8] and edit[0].parent_cursor == 2
    assert chats.leaf(cid) == 8
    assert _texts(chats.path_messages(cid)) == ["q1", "a1", "q2 edited", "a2 edited"]
    # Regenerate the edited answer: a sibling of cursor 8 under cursor 7.
    chats.append_turn(cid, "r1", [Message(role="assistant", content="a2 again")], parent=7)
    page, more = chats.page(cid, limit=2)
    assert _texts(page) == ["q2 edited", "a2 again"] and more
    older, more = chats.page(cid, before_cursor=page[0].cursor, limit=2)
    assert _texts(older) == ["q1", "a1"] and not more
    siblings = chats.siblings(cid, page)
    assert siblings == {7: [3, 7], 9: [8, 9]}
    # Old branches are whole; switching picks the newest leaf below the chosen message.
    assert chats.switch_branch(cid, 3) == 6
    assert _texts(chats.path_messages(cid)) == ["q1", "a1", "q2", "a2", "q3", "a3"]
    assert chats.switch_branch(cid, 7) == 9
    assert chats.switch_branch(cid, 8) == 8
    assert chats.switch_branch(cid, 1) == 8  # on the path already: unchanged
    assert chats.history(cid, leaf=6) == [m for i in range(1, 4) for m in _pair(f"q{i}", f"a{i}")]
    assert chats.user_message_at_or_above(cid, 9).cursor == 7
    assert chats.user_message_at_or_above(cid, 3).parent_cursor == 2
    # All branches, in cursor order, each with its parent (what the JSON export writes).
    parents = {s.cursor: s.parent_cursor for s in chats.stored_messages(cid)}
    assert parents == {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 2, 8: 7, 9: 7}
    with pytest.raises(NotFound):
        chats.switch_branch(cid, 99)


def test_a_context_budget_reads_backwards_and_keeps_a_tool_call_with_its_result(db: Database) -> None:
    chats = ChatRepository(db)
    cid = chats.create().id
    chats.append_turn(cid, "t1", _pair("x" * 100, "y" * 100))
    call = ToolCall(id="c1", name="read_file", arguments="{}")
    chats.append_turn(
        cid,
        "t2",
        [
            Message(role="user", content="u" * 10),
            Message(role="assistant", content="", tool_calls=(call,)),
            Message(role="tool", content="r" * 30, tool_call_id="c1", name="read_file"),
            Message(role="assistant", content="done"),
        ],
    )
    tail = chats.path_messages(cid, max_chars=40)
    # The result alone would fit; its call comes with it, the older turn does not.
    assert [s.message.role for s in tail] == ["assistant", "tool", "assistant"]
    assert tail[0].parent_cursor == 3
    assert len(chats.path_messages(cid, max_chars=10_000)) == 6


def test_imports_rebuild_branches_and_refuse_a_broken_tree(db: Database) -> None:
    chats = ChatRepository(db)
    rec = ChatRecord(IMP, "Imported", False, "2026-01-01", "2026-01-01")

    def msg(cursor: int, parent: int, role: str = "user") -> StoredMessage:
        return StoredMessage(cursor, "t", Message(role=role, content=f"m{cursor}"), "2026", parent)  # type: ignore[arg-type]

    tree = [msg(1, 0), msg(2, 1, "assistant"), msg(3, 0), msg(4, 3, "assistant"), msg(5, 3, "assistant")]
    chats.insert_imported(rec, tree, leaf=2)
    assert _texts(chats.path_messages(IMP)) == ["m1", "m2"]
    assert chats.switch_branch(IMP, 3) == 5
    assert {s.cursor: s.parent_cursor for s in chats.stored_messages(IMP)} == {1: 0, 2: 1, 3: 0, 4: 3, 5: 3}
    for broken, leaf in (([msg(1, 0), msg(2, 7)], None), ([msg(1, 0)], 4)):
        with pytest.raises(ValueError):
            chats.insert_imported(ChatRecord(BAD, "", False, "x", "x"), broken, leaf=leaf)
    assert not chats.exists(BAD)


def test_linear_chats_of_an_older_schema_become_one_branch(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with Database(path, migrations=before("_branches")) as old, old.transaction() as conn:
        conn.execute(
            "INSERT INTO chats (id, title, title_auto, created_at, updated_at) VALUES (?, 't', 0, 'x', 'x')",
            (OLD,),
        )
        conn.executemany(
            "INSERT INTO messages (chat_id, cursor, turn_id, role, content, created_at)"
            " VALUES (?,?,?,?,?,'x')",
            [(OLD, i, f"t{(i - 1) // 2}", ("user", "assistant")[(i - 1) % 2], f"m{i}") for i in range(1, 11)],
        )
    with open_database(path) as db:
        chats = ChatRepository(db)
        assert chats.leaf(OLD) == 10
        page, more = chats.page(OLD, limit=4)
        assert [s.cursor for s in page] == [7, 8, 9, 10] and more
        assert chats.siblings(OLD, page) == {}
        chats.append_turn(OLD, "new", _pair("q", "a"))
        assert [s.cursor for s in chats.page(OLD, limit=3)[0]] == [10, 11, 12]
        assert db.query("SELECT count(*) FROM chat_branches")[0][0] == 0


def test_a_summary_is_used_only_on_the_path_it_summarised(db: Database) -> None:
    chats = ChatRepository(db)
    summaries = SummaryRepository(db)
    cid = chats.create().id
    for i in range(1, 5):
        chats.append_turn(cid, f"t{i}", _pair(f"q{i}", f"a{i}"))  # cursors 1..8
    summaries.add(cid, "folded q1..a2", keep_from_cursor=5)
    store = ConsolidatedStore(chats, chats, summaries)
    main = store.history(cid)
    assert main[0].role == "system" and "folded q1..a2" in main[0].content
    assert [m.content for m in main[1:]] == ["q3", "a3", "q4", "a4"]
    # A regenerate after the summary's range keeps it.
    chats.append_turn(cid, "r", [Message(role="assistant", content="a4 again")], parent=7)
    assert summaries.latest(cid) is not None and store.history(cid)[-1].content == "a4 again"
    # An edit of q2 forks before the kept range: that summary is not this branch's past.
    chats.append_turn(cid, "e", _pair("q2 edited", "a2 edited"), parent=2)
    assert summaries.latest(cid) is None
    assert [m.content for m in store.history(cid)] == ["q1", "a1", "q2 edited", "a2 edited"]
    # Its own summary, then back on the first branch the first summary is in use again.
    summaries.add(cid, "branch summary", keep_from_cursor=11)
    assert "branch summary" in store.history(cid)[0].content
    chats.switch_branch(cid, 3)
    latest = summaries.latest(cid)
    assert latest is not None and latest.content == "folded q1..a2"
    on_branch = summaries.latest(cid, leaf=11)
    assert on_branch is not None and on_branch.content == "branch summary"
