"""read_file, write_file, edit_file and list_dir on a real filesystem."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import Tool, ToolContext, ToolError, ToolResult
from app.support.paging import page_chars
from app.tools.fs import EditFileTool, ListDirTool, ReadFileTool, WriteFileTool


async def run(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return await tool.execute(await tool.prepare(args, ctx), ctx)


async def test_read_file_returns_utf8_text(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.txt").write_text("héllo\nwörld\n", encoding="utf-8")
    result = await run(ReadFileTool(), {"path": "a.txt"}, ctx)
    assert result.ok and result.content == "héllo\nwörld\n" and not result.truncated


async def test_read_file_caps_output_and_says_where_to_continue(workspace: Path, ctx: ToolContext) -> None:
    line = "x" * 99 + "\n"
    (workspace / "big.txt").write_text(line * 5000)
    result = await run(ReadFileTool(), {"path": "big.txt"}, ctx)
    assert result.truncated
    assert len(result.content) <= ctx.output_budget
    next_line = page_chars(ctx.output_budget) // 100 + 1
    assert result.content.endswith(
        f"[truncated: lines 1–{next_line - 1} shown (the output budget is full); "
        f"continue with read_file path='big.txt' offset={next_line}]"
    )
    rest = await run(ReadFileTool(), {"path": "big.txt", "offset": next_line}, ctx)
    assert rest.content.startswith(line)


async def test_read_file_shows_the_start_of_an_over_long_line_and_says_what_is_left_out(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "min.js").write_text("a" * 100_000 + "\nsecond line\n")
    result = await run(ReadFileTool(), {"path": "min.js"}, ctx)
    page = page_chars(ctx.output_budget)
    assert result.content.startswith("a" * page) and "a" * (page + 1) not in result.content
    assert "line 1 is longer than one page" in result.content and "left out" in result.content
    assert result.content.endswith("offset=2]")
    rest = await run(ReadFileTool(), {"path": "min.js", "offset": 2}, ctx)
    assert rest.content == "second line\n" and not rest.truncated


async def test_read_file_offset_and_limit_select_lines(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "n.txt").write_text("".join(f"{i}\n" for i in range(1, 11)))
    result = await run(ReadFileTool(), {"path": "n.txt", "offset": 3, "limit": 2}, ctx)
    assert result.content.startswith("3\n4\n")
    assert "(the line limit was reached); continue with read_file path='n.txt' offset=5]" in result.content


async def test_read_file_refuses_binary_and_non_utf8_files(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (workspace / "latin1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolError, match="binary"):
        await run(ReadFileTool(), {"path": "bin.dat"}, ctx)
    with pytest.raises(ToolError, match="not valid UTF-8"):
        await run(ReadFileTool(), {"path": "latin1.txt"}, ctx)


async def test_read_file_of_a_missing_file_or_a_folder_is_a_clear_error(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(ToolError, match="does not exist"):
        await run(ReadFileTool(), {"path": "nope.txt"}, ctx)
    with pytest.raises(ToolError, match="not a regular file|directory"):
        await run(ReadFileTool(), {"path": "d"}, ctx)


async def test_write_file_creates_a_new_file_and_asks_with_path_and_size(
    workspace: Path, ctx: ToolContext
) -> None:
    tool = WriteFileTool()
    prepared = await tool.prepare({"path": "new.txt", "content": "hi there"}, ctx)
    assert prepared.approval is not None
    assert str(workspace / "new.txt") in prepared.approval.detail
    assert "8 bytes" in prepared.approval.detail and "new file" in prepared.approval.detail
    assert prepared.approval.grant_key is None
    result = await tool.execute(prepared, ctx)
    assert result.ok and (workspace / "new.txt").read_text() == "hi there"
    assert [p.name for p in workspace.iterdir()] == ["new.txt"]  # no temp file left behind


async def test_write_file_without_overwrite_refuses_an_existing_file_and_leaves_it_unchanged(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "keep.txt").write_text("original")
    with pytest.raises(ToolError, match="overwrite: true"):
        await WriteFileTool().prepare({"path": "keep.txt", "content": "new"}, ctx)
    assert (workspace / "keep.txt").read_text() == "original"


async def test_write_file_refuses_when_the_file_appears_between_prepare_and_execute(
    workspace: Path, ctx: ToolContext
) -> None:
    tool = WriteFileTool()
    prepared = await tool.prepare({"path": "race.txt", "content": "mine"}, ctx)
    (workspace / "race.txt").write_text("theirs")
    with pytest.raises(ToolError, match="already exists"):
        await tool.execute(prepared, ctx)
    assert (workspace / "race.txt").read_text() == "theirs"


async def test_write_file_with_overwrite_replaces_content_and_keeps_permissions(
    workspace: Path, ctx: ToolContext
) -> None:
    target = workspace / "run.sh"
    target.write_text("old")
    target.chmod(0o750)
    prepared = await WriteFileTool().prepare({"path": "run.sh", "content": "new", "overwrite": True}, ctx)
    assert prepared.approval is not None and "overwrite existing file" in prepared.approval.detail
    await WriteFileTool().execute(prepared, ctx)
    assert target.read_text() == "new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750


async def test_write_file_does_not_create_missing_parent_folders(workspace: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="parent folders are not created"):
        await WriteFileTool().prepare({"path": "a/b/c.txt", "content": "x"}, ctx)
    assert not (workspace / "a").exists()


async def test_edit_file_replaces_one_unique_occurrence(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("a = 1\nb = 2\n")
    tool = EditFileTool()
    prepared = await tool.prepare({"path": "m.py", "old_string": "b = 2", "new_string": "b = 3"}, ctx)
    assert prepared.approval is not None and "+b = 3" in prepared.approval.detail
    await tool.execute(prepared, ctx)
    assert (workspace / "m.py").read_text() == "a = 1\nb = 3\n"


async def test_edit_file_with_no_match_or_several_matches_says_which_and_changes_nothing(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "m.py").write_text("x = 1\nx = 1\n")
    with pytest.raises(ToolError, match="not found"):
        await EditFileTool().prepare({"path": "m.py", "old_string": "y", "new_string": "z"}, ctx)
    with pytest.raises(ToolError, match="occurs 2 times"):
        await EditFileTool().prepare({"path": "m.py", "old_string": "x = 1", "new_string": "z"}, ctx)
    assert (workspace / "m.py").read_text() == "x = 1\nx = 1\n"


async def test_edit_file_refuses_if_the_file_changed_after_prepare(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("a\n")
    tool = EditFileTool()
    prepared = await tool.prepare({"path": "m.py", "old_string": "a", "new_string": "b"}, ctx)
    (workspace / "m.py").write_text("a\nchanged\n")
    with pytest.raises(ToolError, match="changed since"):
        await tool.execute(prepared, ctx)
    assert (workspace / "m.py").read_text() == "a\nchanged\n"


async def test_list_dir_is_sorted_with_type_markers(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "b.txt").write_text("12345")
    (workspace / "a_dir").mkdir()
    (workspace / "c_link").symlink_to(workspace / "b.txt")
    result = await run(ListDirTool(), {}, ctx)
    assert result.content.splitlines() == ["a_dir/", "b.txt  (5 bytes)", "c_link@"]


async def test_list_dir_caps_long_listings(workspace: Path, ctx: ToolContext) -> None:
    for i in range(510):
        (workspace / f"f{i:04}").touch()
    result = await run(ListDirTool(), {"path": "."}, ctx)
    assert result.truncated and result.content.endswith("[truncated: 10 more entries]")


async def test_read_only_flags_match_what_each_tool_does() -> None:
    assert ReadFileTool.read_only and ListDirTool.read_only
    assert not WriteFileTool.read_only and not EditFileTool.read_only


async def test_read_file_refuses_a_fifo_without_blocking(workspace: Path, ctx: ToolContext) -> None:
    os.mkfifo(workspace / "pipe")
    with pytest.raises(ToolError, match="not a regular file"):
        await run(ReadFileTool(), {"path": "pipe"}, ctx)
