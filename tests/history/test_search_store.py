"""ChatRepository.search on its own: mixed long/short terms and the bounded short-term scan."""

from __future__ import annotations

from pathlib import Path

import pytest

import app.store.chat_search as chat_search
from app.api.plugins import open_database
from app.contracts.messages import Message
from app.store.chats import ChatRepository


def _repo(tmp_path: Path) -> ChatRepository:
    repo = ChatRepository(open_database(tmp_path / "db.sqlite3"))
    chat = repo.create("t")
    texts = ["今天天气很好 quarterly report", "天气 plain", "quarterly only", "newest 天气"]
    for i, text in enumerate(texts):
        repo.append_turn(chat.id, f"t{i}", [Message(role="user", content=text)])
    return repo


def test_long_terms_use_the_index_and_short_terms_filter_its_hits(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert [h.cursor for h in repo.search("quarterly 天气")] == [1]
    assert [h.cursor for h in repo.search("quarterly")] == [3, 1]
    assert [h.cursor for h in repo.search("天气")] == [4, 2, 1]


def test_a_query_of_only_short_terms_scans_only_the_newest_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path)
    monkeypatch.setattr(chat_search, "SHORT_TERM_SCAN_ROWS", 3)
    assert [h.cursor for h in repo.search("天气")] == [4, 2]  # the oldest is outside the window
