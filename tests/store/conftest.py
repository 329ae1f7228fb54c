from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.store.chats import ChatRepository
from app.store.db import Database


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "cashcode.sqlite3"


@pytest.fixture
def db(db_path: Path) -> Iterator[Database]:
    database = open_database(db_path)
    yield database
    database.close()


@pytest.fixture
def chats(db: Database) -> ChatRepository:
    return ChatRepository(db)
