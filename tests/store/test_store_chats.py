from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.contracts.messages import Message, ToolCall
from app.store.chats import ChatRepository
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import is_valid_id, new_id


def _turn(n: int) -> list[Message]:
    return [
        Message(role="user", content=f"question {n}"),
        Message(
            role="assistant",
            content="",
            tool_calls=(ToolCall(id=f"call_{n}", name="read_file", arguments='{"path": "a.txt"}'),),
        ),
        Message(role="tool", content="file text", tool_call_id=f"call_{n}", name="read_file"),
        Message(role="assistant", content=f"answer {n} ✓"),
    ]


def test_a_new_chat_gets_a_canonical_id_and_an_automatic_empty_title(chats: ChatRepository) -> None:
    chat = chats.create()
    assert is_valid_id(chat.id)
    assert chat.title == "" and chat.title_auto
    assert chats.get(chat.id) == chat


def test_a_chat_created_with_a_title_keeps_it_as_a_user_title(chats: ChatRepository) -> None:
    chat = chats.create("  My   plans ")
    assert chat.title == "My plans" and not chat.title_auto


def test_getting_an_unknown_chat_raises_not_found(chats: ChatRepository) -> None:
    with pytest.raises(NotFound):
        chats.get(new_id())


def test_chats_are_listed_most_recently_updated_first_with_paging(chats: ChatRepository) -> None:
    a, b, c = chats.create("a"), chats.create("b"), chats.create("c")
    chats.append_turn(a.id, "t1", _turn(1))

    assert [x.id for x in chats.list()] == [a.id, c.id, b.id]
    assert [x.id for x in chats.list(limit=1, offset=1)] == [c.id]


def test_append_turn_numbers_messages_from_one_and_continues_after_the_last(chats: ChatRepository) -> None:
    chat = chats.create()
    first = chats.append_turn(chat.id, "t1", _turn(1))
    second = chats.append_turn(chat.id, "t2", _turn(2)[:1])

    assert [s.cursor for s in first] == [1, 2, 3, 4]
    assert [s.cursor for s in second] == [5]
    assert {s.turn_id for s in first} == {"t1"}
    assert chats.last_cursor(chat.id) == 5
    assert chats.get(chat.id).updated_at >= chat.updated_at


def test_history_returns_the_same_messages_in_cursor_order(chats: ChatRepository) -> None:
    chat = chats.create()
    chats.append_turn(chat.id, "t1", _turn(1))
    chats.append_turn(chat.id, "t2", _turn(2))

    assert chats.history(chat.id) == _turn(1) + _turn(2)
    assert chats.history(chat.id, from_cursor=7) == _turn(2)[2:]


def test_a_turn_id_cannot_be_written_twice(chats: ChatRepository) -> None:
    chat = chats.create()
    chats.append_turn(chat.id, "t1", _turn(1))
    with pytest.raises(Conflict):
        chats.append_turn(chat.id, "t1", _turn(2))
    assert len(chats.history(chat.id)) == 4


def test_appending_to_an_unknown_chat_raises_not_found_and_writes_nothing(
    chats: ChatRepository, db: Database
) -> None:
    with pytest.raises(NotFound):
        chats.append_turn(new_id(), "t1", _turn(1))
    assert db.query("SELECT count(*) FROM messages")[0][0] == 0


def test_a_turn_with_a_non_message_writes_nothing(chats: ChatRepository) -> None:
    chat = chats.create()
    with pytest.raises(TypeError):
        chats.append_turn(chat.id, "t1", [*_turn(1), {"role": "user"}])  # type: ignore[list-item]
    assert chats.history(chat.id) == []


def test_paging_walks_backwards_from_the_newest_messages(chats: ChatRepository) -> None:
    chat = chats.create()
    for n in range(3):
        chats.append_turn(chat.id, f"t{n}", _turn(n))  # 12 messages

    newest, more = chats.page(chat.id, limit=5)
    assert [s.cursor for s in newest] == [8, 9, 10, 11, 12] and more
    older, more = chats.page(chat.id, before_cursor=8, limit=5)
    assert [s.cursor for s in older] == [3, 4, 5, 6, 7] and more
    oldest, more = chats.page(chat.id, before_cursor=3, limit=5)
    assert [s.cursor for s in oldest] == [1, 2] and not more


def test_paging_an_empty_chat_returns_nothing_and_no_more(chats: ChatRepository) -> None:
    assert chats.page(chats.create().id, limit=10) == ([], False)


def test_a_user_rename_sticks_and_automatic_titles_do_not_replace_it(chats: ChatRepository) -> None:
    chat = chats.create()
    assert chats.rename(chat.id, "Auto title", auto=True).title == "Auto title"
    renamed = chats.rename(chat.id, "Mine")
    assert renamed.title == "Mine" and not renamed.title_auto

    assert chats.rename(chat.id, "Another auto title", auto=True).title == "Mine"


def test_renaming_to_blank_is_refused(chats: ChatRepository) -> None:
    chat = chats.create("x")
    with pytest.raises(ValueError):
        chats.rename(chat.id, "   ")


def test_deleting_a_chat_removes_its_messages(chats: ChatRepository, db: Database) -> None:
    chat, other = chats.create(), chats.create()
    chats.append_turn(chat.id, "t1", _turn(1))
    chats.append_turn(other.id, "t1", _turn(1))

    chats.delete(chat.id)

    with pytest.raises(NotFound):
        chats.get(chat.id)
    with pytest.raises(NotFound):
        chats.delete(chat.id)
    assert db.query("SELECT count(*) FROM messages WHERE chat_id = ?", (chat.id,))[0][0] == 0
    assert len(chats.history(other.id)) == 4


def test_concurrent_appends_from_threads_keep_cursors_contiguous(chats: ChatRepository) -> None:
    chat = chats.create()

    def writer(w: int) -> None:
        for n in range(25):
            chats.append_turn(chat.id, f"w{w}-{n}", _turn(n))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    stored = chats.stored_messages(chat.id)
    assert [s.cursor for s in stored] == list(range(1, 4 * 25 * 4 + 1))
    by_turn: dict[str, list[int]] = {}
    for s in stored:
        by_turn.setdefault(s.turn_id, []).append(s.cursor)
    assert all(c == list(range(c[0], c[0] + 4)) for c in by_turn.values())


def test_messages_survive_reopening_the_database(db_path: Path) -> None:
    with open_database(db_path) as db:
        chat = ChatRepository(db).create("kept")
        ChatRepository(db).append_turn(chat.id, "t1", _turn(1))
    with open_database(db_path) as db:
        assert ChatRepository(db).history(chat.id) == _turn(1)
