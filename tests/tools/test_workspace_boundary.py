"""Every file tool and the exec working folder refuse paths that escape the workspace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import Tool, ToolContext, ToolError
from app.tools.exec import ExecTool
from app.tools.fs import EditFileTool, ListDirTool, ReadFileTool, WriteFileTool
from app.tools.search import GlobTool, GrepTool
from app.tools.workspace import resolve_in_workspace


def _escapes(workspace: Path, outside: Path) -> dict[str, str]:
    """name -> a user path that escapes; symlinks are created here."""
    (workspace / "out_dir_link").symlink_to(outside, target_is_directory=True)
    (workspace / "out_file_link").symlink_to(outside / "secret.txt")
    return {
        "dotdot": "../outside/secret.txt",
        "dotdot_dir": "..",
        "absolute": str(outside / "secret.txt"),
        "absolute_dir": str(outside),
        "file_symlink": "out_file_link",
        "dir_symlink": "out_dir_link",
        "through_dir_symlink": "out_dir_link/secret.txt",
        "new_file_under_symlinked_parent": "out_dir_link/new.txt",
        "dotdot_inside_new_path": "newdir/../../outside/x.txt",
    }


ESCAPE_NAMES = [
    "dotdot",
    "dotdot_dir",
    "absolute",
    "absolute_dir",
    "file_symlink",
    "dir_symlink",
    "through_dir_symlink",
    "new_file_under_symlinked_parent",
    "dotdot_inside_new_path",
]


def _calls(p: str) -> list[tuple[Tool, dict[str, Any]]]:
    return [
        (ReadFileTool(), {"path": p}),
        (WriteFileTool(), {"path": p, "content": "x", "overwrite": True}),
        (EditFileTool(), {"path": p, "old_string": "top", "new_string": "bottom"}),
        (ListDirTool(), {"path": p}),
        (GlobTool(), {"pattern": "*", "path": p}),
        (GrepTool(), {"pattern": "secret", "path": p}),
        (ExecTool(), {"argv": ["pwd"], "cwd": p}),
    ]


@pytest.mark.parametrize("escape", ESCAPE_NAMES)
async def test_every_file_tool_and_exec_cwd_refuse_a_path_that_escapes_the_workspace(
    escape: str, workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    user_path = _escapes(workspace, outside)[escape]
    for tool, args in _calls(user_path):
        with pytest.raises(ToolError, match="outside the workspace"):
            await tool.prepare(args, ctx)
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (outside / "new.txt").exists()


async def test_glob_does_not_descend_into_or_list_symlinks_that_point_outside(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    _escapes(workspace, outside)
    (workspace / "inside.txt").write_text("secret inside\n")
    tool = GlobTool()
    result = await tool.execute(await tool.prepare({"pattern": "**"}, ctx), ctx)
    assert result.content.splitlines() == ["inside.txt"]
    with pytest.raises(ToolError):
        await tool.prepare({"pattern": "../outside/*"}, ctx)
    with pytest.raises(ToolError):
        await tool.prepare({"pattern": str(outside / "*")}, ctx)


async def test_grep_never_reads_through_symlinks_that_point_outside(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    _escapes(workspace, outside)
    (workspace / "inside.txt").write_text("secret inside\n")
    tool = GrepTool()
    result = await tool.execute(await tool.prepare({"pattern": "secret"}, ctx), ctx)
    assert result.content == "inside.txt:1: secret inside"


async def test_symlinks_that_stay_inside_the_workspace_are_followed(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "real.txt").write_text("hello\n")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    tool = ReadFileTool()
    result = await tool.execute(await tool.prepare({"path": "alias.txt"}, ctx), ctx)
    assert result.content == "hello\n"


async def test_writes_edits_and_exec_cwd_inside_a_protected_root_are_refused_but_reads_work(
    workspace: Path,
) -> None:
    skills = workspace / "skills"
    skills.mkdir()
    (skills / "SKILL.md").write_text("# skill\n")
    ctx = ToolContext(workspace=workspace, protected_roots=(skills,))
    cases: list[tuple[Tool, dict[str, Any]]] = [
        (WriteFileTool(), {"path": "skills/new.md", "content": "x"}),
        (EditFileTool(), {"path": "skills/SKILL.md", "old_string": "skill", "new_string": "x"}),
        (ExecTool(), {"argv": ["pwd"], "cwd": "skills"}),
    ]
    for tool, args in cases:
        with pytest.raises(ToolError, match="protected Skill folder"):
            await tool.prepare(args, ctx)
    read = ReadFileTool()
    assert (
        await read.execute(await read.prepare({"path": "skills/SKILL.md"}, ctx), ctx)
    ).content == "# skill\n"
    assert (skills / "SKILL.md").read_text() == "# skill\n"


def test_a_protected_root_reached_through_a_symlink_is_still_protected(workspace: Path) -> None:
    skills = workspace / "skills"
    skills.mkdir()
    (workspace / "s").symlink_to(skills, target_is_directory=True)
    ctx = ToolContext(workspace=workspace, protected_roots=(skills,))
    with pytest.raises(ToolError, match="protected"):
        resolve_in_workspace("s/x.md", ctx, for_write=True)


def test_relative_paths_resolve_against_the_workspace_and_may_not_exist_yet(
    workspace: Path, ctx: ToolContext
) -> None:
    assert resolve_in_workspace("a/b/c.txt", ctx) == workspace / "a" / "b" / "c.txt"
    assert resolve_in_workspace(str(workspace), ctx) == workspace
    assert resolve_in_workspace("./x/../y", ctx) == workspace / "y"


def test_a_dangling_symlink_pointing_outside_is_refused(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    (workspace / "dangling").symlink_to(outside / "does-not-exist.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace("dangling", ctx, for_write=True)


def test_empty_and_nul_paths_are_refused_with_a_clear_message(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="non-empty path"):
        resolve_in_workspace("", ctx)
    with pytest.raises(ToolError, match="NUL"):
        resolve_in_workspace("a\x00b", ctx)


def test_the_workspace_fixture_is_a_real_path(workspace: Path) -> None:
    assert Path(os.path.realpath(workspace)) == workspace
