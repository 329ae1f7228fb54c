"""Provider-safe tool names and the per-chat LRU activation set."""

from __future__ import annotations

import re
from pathlib import Path

from app.api.plugins import open_database
from app.mcp.activations import ActivationStore
from app.mcp.results import name_map
from app.store.chats import ChatRepository
from tests.api.conftest import AppMaker, ok

VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_names_are_sanitised_short_and_unique() -> None:
    pairs = [
        ("fs", "read.file"),
        ("fs", "read_file"),  # collides with the sanitised name above
        ("a_b", "c"),
        ("a", "b_c"),  # collides: mcp_a_b_c
        ("long", "x" * 100),
        ("long", "x" * 99 + "y"),
        ("中文", "工具"),
    ]
    names = name_map(pairs)
    assert len(set(names.values())) == len(pairs)
    assert all(VALID.fullmatch(n) for n in names.values())
    assert (
        names[("fs", "read.file")] == "mcp_fs_read_file" or names[("fs", "read_file")] == "mcp_fs_read_file"
    )
    assert name_map(reversed(pairs)) == names  # deterministic


def test_activations_are_an_lru_of_fifty_per_chat_and_survive_reopening(tmp_path: Path) -> None:
    db = open_database(tmp_path / "db.sqlite3")
    chats = ChatRepository(db)
    one, two = chats.create("one").id, chats.create("two").id
    store = ActivationStore(db)
    store.touch(one, [("s", f"t{i}") for i in range(60)])
    listed = store.list(one)
    assert len(listed) == 50 and listed[0] == ("s", "t0") and ("s", "t59") not in listed
    store.touch(one, [("s", "t49")])  # used again: most recent
    assert store.list(one)[0] == ("s", "t49")
    assert store.list(two) == []
    db.close()
    reopened = ActivationStore(open_database(tmp_path / "db.sqlite3"))
    assert reopened.list(one)[0] == ("s", "t49")
    chats2 = ChatRepository(open_database(tmp_path / "db.sqlite3"))
    chats2.delete(one)
    assert ActivationStore(open_database(tmp_path / "db.sqlite3")).list(one) == []


async def test_deleting_a_server_forgets_its_activations(make_app: AppMaker) -> None:
    from tests.mcp.helpers import add_rough

    app, _ = await make_app()
    await add_rough(app)
    chat = (await ok(app, "chats.create"))["id"]
    store = ActivationStore(app.ctx.db)
    store.touch(chat, [("rough", "fail"), ("test_stdio_mcp", "say_hello")])
    await ok(app, "mcp.servers.delete", {"name": "rough"})
    assert store.list(chat) == [("test_stdio_mcp", "say_hello")]
