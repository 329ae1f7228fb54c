from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from app.contracts.messages import Message
from app.contracts.tools import GrantKey
from app.store.approvals import SqliteApprovalLedger
from app.store.chats import ChatRepository
from app.store.db import Database
from app.store.errors import InvalidId
from app.store.ids import new_id, validate_chat_id
from app.store.usage import UsageRepository

_U = str(uuid.uuid4())
BAD_IDS = [
    "",
    "../x",
    "1; DROP TABLE chats",
    _U.upper(),
    "{" + _U + "}",
    _U.replace("-", ""),
    _U + "\n",
    " " + _U,
    "urn:uuid:" + _U,
    "x" * 36,
]


def test_new_ids_are_canonical_lowercase_uuids() -> None:
    value = new_id()
    assert validate_chat_id(value) == value == str(uuid.UUID(value))


@pytest.mark.parametrize("bad", BAD_IDS)
def test_bad_chat_ids_are_refused_by_the_validator(bad: str) -> None:
    with pytest.raises(InvalidId):
        validate_chat_id(bad)


def _calls(db: Database) -> dict[str, Callable[[str], object]]:
    chats = ChatRepository(db)
    usage = UsageRepository(db)
    ledger = SqliteApprovalLedger(db)
    msg = [Message(role="user", content="hi")]
    return {
        "create": lambda cid: chats.create("t", chat_id=cid),
        "get": chats.get,
        "exists": chats.exists,
        "rename": lambda cid: chats.rename(cid, "t"),
        "delete": chats.delete,
        "append_turn": lambda cid: chats.append_turn(cid, "t1", msg),
        "page": lambda cid: chats.page(cid, limit=5),
        "history": chats.history,
        "stored_messages": chats.stored_messages,
        "last_cursor": chats.last_cursor,
        "usage.record": lambda cid: usage.record(cid, "t1", "p", "m", 1, 1),
        "usage.for_chat": usage.for_chat,
        "ledger.add": lambda cid: ledger.add(GrantKey("exec", ("ls",)), chat_id=cid),
        "ledger.revoke": ledger.revoke,
    }


@pytest.mark.parametrize("bad", BAD_IDS)
def test_every_repository_method_refuses_bad_ids_and_writes_nothing(db: Database, bad: str) -> None:
    for name, call in _calls(db).items():
        with pytest.raises(InvalidId):
            call(bad)
            pytest.fail(f"{name} accepted {bad!r}")
    for table in ("chats", "messages", "usage", "approval_grants"):
        assert db.query(f"SELECT count(*) FROM {table}")[0][0] == 0


@pytest.mark.parametrize("bad_turn", ["", "a b", "../t", "t;1", "x" * 65])
def test_bad_turn_ids_are_refused(chats: ChatRepository, bad_turn: str) -> None:
    chat = chats.create()
    with pytest.raises(InvalidId):
        chats.append_turn(chat.id, bad_turn, [Message(role="user", content="hi")])
