"""The notes and todo tools one by one: what each asks before it runs, what it returns, and
that a wrong id is an error the model can read (nothing is asked, nothing changes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.contracts.tools import Tool, ToolContext, ToolError
from app.memory.notes import NotesRepository
from app.memory.notes_tools import NOTES_TOOLS


@pytest.fixture
def tools(tmp_path: Path) -> dict[str, Tool]:
    db = open_database(tmp_path / "app.db")
    repo = NotesRepository(db)
    return {cls.name: cls(repo) for cls in NOTES_TOOLS}


async def _run(tool: Tool, args: dict[str, object], ctx: ToolContext) -> tuple[object, dict[str, object]]:
    call = await tool.prepare(args, ctx)
    result = await tool.execute(call, ctx)
    assert result.ok
    return call.approval, json.loads(result.content)


async def test_notes_and_todos_round_trip_through_the_tools(tools: dict[str, Tool], tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path)
    asked, created = await _run(tools["create_note"], {"title": "Plan", "content": "先做这个"}, ctx)
    assert asked is not None and asked.title == "Create a note"  # type: ignore[attr-defined]
    note_id = created["created"]["id"]  # type: ignore[index]
    asked, listed = await _run(tools["list_notes"], {}, ctx)
    assert asked is None and [n["title"] for n in listed["notes"]] == ["Plan"]  # type: ignore[attr-defined]
    asked, got = await _run(tools["get_note"], {"id": note_id}, ctx)
    assert asked is None and got["content"] == "先做这个"
    asked, deleted = await _run(tools["delete_note"], {"id": note_id}, ctx)
    assert asked.title == "Delete a note" and asked.detail == f"{note_id}: Plan"  # type: ignore[attr-defined]
    assert deleted == {"deleted": note_id}

    _, todo = await _run(tools["create_todo"], {"title": "buy milk"}, ctx)
    todo_id = todo["created"]["id"]  # type: ignore[index]
    asked, done = await _run(tools["complete_todo"], {"id": todo_id}, ctx)
    assert (asked.title, asked.detail) == ("Complete a todo", "buy milk")  # type: ignore[attr-defined]
    assert done["completed"]["id"] == todo_id  # type: ignore[index]
    asked, _ = await _run(tools["delete_todo"], {"id": todo_id}, ctx)
    assert (asked.title, asked.detail) == ("Delete a todo", "buy milk")  # type: ignore[attr-defined]
    assert (await _run(tools["list_todos"], {}, ctx))[1] == {"todos": []}
    assert (await _run(tools["list_notes"], {}, ctx))[1] == {"notes": []}


@pytest.mark.parametrize("name", ["delete_note", "complete_todo", "delete_todo"])
async def test_a_wrong_id_is_an_error_before_anything_is_asked(
    tools: dict[str, Tool], tmp_path: Path, name: str
) -> None:
    with pytest.raises(ToolError):
        await tools[name].prepare({"id": "no-such-id"}, ToolContext(workspace=tmp_path))
    with pytest.raises(ToolError):
        await tools[name].prepare({}, ToolContext(workspace=tmp_path))


async def test_reading_a_missing_note_is_an_error_the_model_reads(
    tools: dict[str, Tool], tmp_path: Path
) -> None:
    ctx = ToolContext(workspace=tmp_path)
    call = await tools["get_note"].prepare({"id": "no-such-id"}, ctx)
    with pytest.raises(ToolError):
        await tools["get_note"].execute(call, ctx)
