"""Activations of a chat that is not stored yet (`cashcode ask` stores its chat with the first
completed turn) live in memory and are written once the chat exists (issue 22 item 2)."""

from __future__ import annotations

from pathlib import Path

from app.api.plugins import open_database
from app.contracts.messages import Message
from app.mcp.activations import ActivationStore
from app.store.chats import ChatRepository


def test_a_reserved_chat_keeps_its_activations_and_writes_them_when_stored(tmp_path: Path) -> None:
    db = open_database(tmp_path / "cashcode.sqlite3")
    chats = ChatRepository(db)
    store = ActivationStore(db, is_reserved=chats.is_reserved)
    chat = chats.reserve().id
    store.touch(chat, [("srv", "a"), ("srv", "b")])  # no row to point at yet: no FOREIGN KEY error
    store.touch(chat, [("srv", "b")])
    assert store.list(chat) == [("srv", "b"), ("srv", "a")]
    assert db.query("SELECT count(*) AS n FROM mcp_activations")[0]["n"] == 0
    chats.append_turn(chat, "t1", [Message(role="user", content="q"), Message(role="assistant", content="a")])
    assert store.list(chat) == [("srv", "b"), ("srv", "a")]  # and now written
    rows = db.query("SELECT server, tool FROM mcp_activations WHERE chat_id = ? ORDER BY seq DESC", (chat,))
    assert [(r["server"], r["tool"]) for r in rows] == [("srv", "b"), ("srv", "a")]
    store.forget_server("srv")
    assert store.list(chat) == []
    db.close()
