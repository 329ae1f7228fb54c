"""Duplicate memories are refused (issue 22 item 9): `add`, `update`, `remember_memory` and
`save_memory` (an identical MEMORY.md line) leave the store as it was and name what exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.contracts.tools import ToolContext, ToolError
from app.memory.explicit import MemoryRepository
from app.memory.memory_file import MemoryFile
from app.memory.memory_tools import RememberMemoryTool, SaveMemoryTool
from app.memory.provenance import Provenance, Tombstones
from app.store.db import Database
from app.store.errors import Conflict


@pytest.fixture
def db(tmp_path: Path) -> Database:
    return open_database(tmp_path / "db.sqlite3")


def test_add_and_update_refuse_a_second_memory_with_the_same_text(db: Database) -> None:
    repo = MemoryRepository(db)
    first = repo.add("The user prefers uv", ["python"])
    with pytest.raises(Conflict, match=first.id):
        repo.add("The user prefers uv", ["other"])
    with pytest.raises(Conflict, match=first.id):
        repo.add("  The user prefers uv \n")  # the same text once normalised
    other = repo.add("The user prefers pip")
    with pytest.raises(Conflict, match=first.id):
        repo.update(other.id, "The user prefers uv")
    assert repo.count() == 2 and repo.get(other.id).content == "The user prefers pip"
    # updating a memory to its own text (new tags) is no duplicate
    assert repo.update(first.id, "The user prefers uv", ["python", "tooling"]).tags == ("python", "tooling")


async def test_remember_memory_refuses_a_duplicate(db: Database, tmp_path: Path) -> None:
    repo = MemoryRepository(db)
    repo.add("Deploys happen on Fridays")
    tool = RememberMemoryTool(repo)
    ctx = ToolContext(workspace=tmp_path, chat_id="c", turn_id="t")
    with pytest.raises(ToolError, match="already has this text"):  # before anyone is asked
        await tool.prepare({"content": "Deploys happen on Fridays"}, ctx)
    # Written meanwhile (after the confirmation was asked): the write still refuses it.
    call = await tool.prepare({"content": "Releases happen on Tuesdays"}, ctx)
    repo.add("Releases happen on Tuesdays")
    with pytest.raises(ToolError, match="already has this text"):
        await tool.execute(call, ctx)
    assert repo.count() == 2


async def test_save_memory_does_not_append_the_same_line_twice(db: Database, tmp_path: Path) -> None:
    mem = MemoryFile(db, tmp_path)
    tool = SaveMemoryTool(mem, Provenance(db), Tombstones(db))
    ctx = ToolContext(workspace=tmp_path, chat_id="c", turn_id="t")
    await tool.execute(await tool.prepare({"fact": "Use UTC in logs"}, ctx), ctx)
    before = mem.read().text
    with pytest.raises(ToolError, match="already has this line"):
        await tool.execute(await tool.prepare({"fact": "Use  UTC in logs "}, ctx), ctx)
    assert mem.read().text == before and before.count("Use UTC in logs") == 1
    await tool.execute(await tool.prepare({"fact": "Use UTC in logs always"}, ctx), ctx)
    assert mem.read().text.count("- Use UTC in logs") == 2
