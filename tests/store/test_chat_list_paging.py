"""Keyset paging of the chat list (`ChatRepository.list_page`)."""

from __future__ import annotations

import pytest

from app.contracts.messages import Message
from app.store.chats import ChatRecord, ChatRepository
from app.store.db import Database
from app.store.errors import InvalidId


def _walk(chats: ChatRepository, limit: int, **kw: str) -> list[list[ChatRecord]]:
    pages: list[list[ChatRecord]] = []
    before = None
    while True:
        page, before = chats.list_page(limit, before=before, title_contains=kw.get("title"))
        pages.append(page)
        if before is None:
            return pages


def test_pages_cover_every_chat_once_newest_first_including_ties(db: Database, chats: ChatRepository) -> None:
    made = [chats.create(f"chat {i}") for i in range(23)]
    # Seven chats share one updated_at: the keyset must continue inside the tie by id.
    with db.transaction() as conn:
        for c in made[5:12]:
            conn.execute("UPDATE chats SET updated_at = ? WHERE id = ?", ("2026-01-01T00:00:00Z", c.id))
    everything = chats.list(limit=1000)
    pages = _walk(chats, 4)
    assert [len(p) for p in pages] == [4, 4, 4, 4, 4, 3]
    walked = [c.id for p in pages for c in p]
    assert len(set(walked)) == 23
    expected = sorted(everything, key=lambda c: c.id)
    expected.sort(key=lambda c: c.updated_at, reverse=True)
    assert walked == [c.id for c in expected]


def test_an_exact_page_multiple_ends_without_an_empty_extra_page(chats: ChatRepository) -> None:
    for i in range(6):
        chats.create(f"c{i}")
    first, after = chats.list_page(3)
    assert after is not None
    second, end = chats.list_page(3, before=after)
    assert len(first) == len(second) == 3 and end is None


def test_an_updated_chat_moves_to_the_first_page_and_is_not_repeated_later(chats: ChatRepository) -> None:
    made = [chats.create(f"c{i}") for i in range(6)]
    first, after = chats.list_page(3)
    assert made[0].id not in {c.id for c in first}
    chats.append_turn(made[0].id, "t1", [Message(role="user", content="hi")])
    rest, _ = chats.list_page(10, before=after)
    assert made[0].id not in {c.id for c in rest}  # now newer than the keyset: on page one
    assert chats.list_page(1)[0][0].id == made[0].id


def test_title_filter_pages_and_treats_like_wildcards_literally(chats: ChatRepository) -> None:
    for i in range(5):
        chats.create(f"Report {i}")
    chats.create("100% done")
    chats.create("1000 things")
    chats.create("other")
    assert [len(p) for p in _walk(chats, 2, title="report")] == [2, 2, 1]
    assert [c.title for c in chats.list_page(10, title_contains="0%")[0]] == ["100% done"]
    assert chats.list_page(10, title_contains="nothing like it")[0] == []


def test_bad_page_arguments_are_refused(chats: ChatRepository) -> None:
    with pytest.raises(ValueError):
        chats.list_page(0)
    with pytest.raises(InvalidId):
        chats.list_page(5, before=("2026-01-01T00:00:00.000000Z", "not-an-id"))
