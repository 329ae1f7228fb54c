from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.contracts.messages import Message
from app.store.activity import migrate_chat_activity
from app.store.branches import SCHEMA as BRANCHES_SCHEMA
from app.store.chats import ChatRepository
from app.store.db import Database
from app.store.migrations import SCHEMA_V1, run_script
from app.store.visible import migrate_visible_count


def _fill(chats: ChatRepository) -> tuple[str, str]:
    a = chats.create("Trip planning").id
    b = chats.create("Code review").id
    chats.append_turn(
        a,
        "t1",
        [
            Message(role="user", content="Plan a trip to Kyoto in autumn"),
            Message(role="assistant", content="Kyoto in November: maple leaves, 100% worth it."),
        ],
    )
    chats.append_turn(
        b,
        "t1",
        [
            Message(role="user", content="Review my Python code for the parser"),
            Message(role="tool", content="tool output mentioning Kyoto", tool_call_id="c", name="x"),
            Message(role="assistant", content="我们来看看你好世界的代码"),
        ],
    )
    return a, b


def _without_fts(conn: sqlite3.Connection) -> None:
    run_script(conn, SCHEMA_V1)
    run_script(conn, BRANCHES_SCHEMA)
    migrate_chat_activity(conn)  # the tables every write keeps (counts for the chat list)
    migrate_visible_count(conn)


@pytest.fixture(params=["fts", "like-only"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> ChatRepository:
    path = tmp_path / "s.sqlite3"
    db = Database(path) if request.param == "fts" else Database(path, migrations=(_without_fts,))
    request.addfinalizer(db.close)
    assert db.has_table("messages_fts") == (request.param == "fts")
    return ChatRepository(db)


def test_search_finds_messages_containing_every_word_newest_first(repo: ChatRepository) -> None:
    a, _ = _fill(repo)
    hits = repo.search("kyoto")
    assert [(h.chat_id, h.cursor, h.role) for h in hits] == [(a, 2, "assistant"), (a, 1, "user")]
    assert hits[0].chat_title == "Trip planning"
    assert "Kyoto" in hits[0].snippet

    assert [h.cursor for h in repo.search("kyoto autumn")] == [1]
    assert repo.search("kyoto parser") == []


def test_tool_results_are_not_searched(repo: ChatRepository) -> None:
    _fill(repo)
    assert all(h.role != "tool" for h in repo.search("output mentioning"))
    assert repo.search("output mentioning") == []


def test_search_matches_chinese_and_short_terms(repo: ChatRepository) -> None:
    _, b = _fill(repo)
    assert [h.chat_id for h in repo.search("你好世界")] == [b]
    assert [h.chat_id for h in repo.search("你好")] == [b]
    assert len(repo.search("in")) == 2


def test_search_syntax_and_wildcards_in_the_query_are_literal(repo: ChatRepository) -> None:
    _fill(repo)
    assert len(repo.search("100%")) == 1
    assert len(repo.search("%")) == 1  # the literal percent sign only
    assert repo.search("%%") == []
    assert repo.search('"kyoto" OR *') == []
    assert repo.search("a_b") == []
    assert repo.search("   ") == []


def test_deleted_chats_disappear_from_search(repo: ChatRepository) -> None:
    a, _ = _fill(repo)
    repo.delete(a)
    assert repo.search("kyoto") == []


def test_long_messages_get_a_short_snippet_around_the_match(repo: ChatRepository) -> None:
    chat = repo.create().id
    repo.append_turn(chat, "t1", [Message(role="user", content="x " * 500 + "needle here " + "y " * 500)])
    (hit,) = repo.search("needle")
    assert "needle" in hit.snippet and len(hit.snippet) <= 162
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
