"""The app's own folders are off limits when the workspace contains them (workspace = home).

File tools ask before reading or listing inside them and their walks skip them; the safe-command
list stops auto-approving anything that would read there. Hard-linked files ask as well.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import Tool, ToolContext
from app.tools.approvals import Allow, Ask, decide
from app.tools.exec import ExecTool
from app.tools.fs import ListDirTool, ReadFileTool
from app.tools.safe_commands import classify
from app.tools.search import GlobTool, GrepTool

from .conftest import MemoryLedger


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "home"
    data = root / ".local/share/CashCode"
    (data / "skills/s").mkdir(parents=True)
    (data / "cashcode.sqlite3").write_text("SECRET-DB\n")
    (data / "skills/s/SKILL.md").write_text("SECRET-SKILL\n")
    config = root / ".config/CashCode"
    config.mkdir(parents=True)
    (config / "settings.json").write_text('{"SECRET": "SECRET-SETTINGS"}\n')
    (root / "notes.txt").write_text("my notes, no SECRET here\n")
    return root


@pytest.fixture
def hctx(home: Path) -> ToolContext:
    return ToolContext(
        workspace=home,
        private_roots=(home / ".local/share/CashCode", home / ".config/CashCode"),
    )


async def verdict(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> object:
    prepared = await tool.prepare(args, ctx)
    return decide(tool, prepared, mode="ask_writes", policies={}, ledger=MemoryLedger())


async def run(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> str:
    prepared = await tool.prepare(args, ctx)
    assert prepared.approval is None
    return (await tool.execute(prepared, ctx)).content


async def test_file_tools_ask_inside_the_app_folders(home: Path, hctx: ToolContext) -> None:
    for tool, args in (
        (ReadFileTool(), {"path": ".local/share/CashCode/cashcode.sqlite3"}),
        (ReadFileTool(), {"path": ".config/CashCode/settings.json"}),
        (ListDirTool(), {"path": ".local/share/CashCode"}),
        (ListDirTool(), {"path": ".local/share/CashCode/skills"}),
        (GlobTool(), {"pattern": "*", "path": ".config/CashCode"}),
        (GrepTool(), {"pattern": "SECRET", "path": ".local/share/CashCode"}),
    ):
        result = await verdict(tool, args, hctx)
        assert isinstance(result, Ask), (tool.name, args)
        assert result.approval.grant_key is None
    assert await verdict(ReadFileTool(), {"path": "notes.txt"}, hctx) == Allow("read_only")
    assert await verdict(ListDirTool(), {"path": ".local/share"}, hctx) == Allow("read_only")


async def test_a_symlink_into_the_app_folder_asks_too(home: Path, hctx: ToolContext) -> None:
    (home / "innocent.txt").symlink_to(home / ".config/CashCode/settings.json")
    assert isinstance(await verdict(ReadFileTool(), {"path": "innocent.txt"}, hctx), Ask)


async def test_walks_from_above_skip_the_app_folders(home: Path, hctx: ToolContext) -> None:
    grep = await run(GrepTool(), {"pattern": "SECRET"}, hctx)
    assert "notes.txt" in grep and "SECRET-" not in grep
    found = await run(GlobTool(), {"pattern": "**/*"}, hctx)
    assert "notes.txt" in found and "CashCode" not in found


async def test_safe_commands_stop_being_safe_inside_or_over_the_app_folders(
    home: Path, hctx: ToolContext
) -> None:
    asks = (
        ["cat", ".local/share/CashCode/cashcode.sqlite3"],
        ["head", ".config/CashCode/settings.json"],
        ["ls", ".local/share/CashCode"],
        ["grep", "-r", "SECRET", "."],
        ["grep", "-ri", "SECRET"],
        ["ls", "-laR"],
        ["grep", "--recursive", "SECRET"],
    )
    for argv in asks:
        assert isinstance(await verdict(ExecTool(), {"argv": argv}, hctx), Ask), argv
    inside = {"argv": ["ls"], "cwd": ".local/share/CashCode"}
    assert isinstance(await verdict(ExecTool(), inside, hctx), Ask)
    for argv in (["ls", "-la"], ["cat", "notes.txt"], ["grep", "SECRET", "notes.txt"]):
        assert await verdict(ExecTool(), {"argv": argv}, hctx) == Allow("safe_command"), argv


async def test_the_default_workspace_inside_the_data_folder_is_not_private(tmp_path: Path) -> None:
    data = Path(os.path.realpath(tmp_path)) / "data"
    ws = data / "workspace"
    ws.mkdir(parents=True)
    (ws / "a.txt").write_text("a")
    ctx = ToolContext(workspace=ws, private_roots=(data,))
    assert await verdict(ReadFileTool(), {"path": "a.txt"}, ctx) == Allow("read_only")
    assert await verdict(ExecTool(), {"argv": ["grep", "-r", "a", "."]}, ctx) == Allow("safe_command")


async def test_a_hard_link_to_a_file_outside_the_workspace_is_not_read_unasked(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    os.link(outside / "secret.txt", workspace / "linked.txt")
    (workspace / "plain.txt").write_text("plain\n")
    read = await verdict(ReadFileTool(), {"path": "linked.txt"}, ctx)
    assert isinstance(read, Ask) and "hard-linked" in read.approval.detail
    assert isinstance(await verdict(ExecTool(), {"argv": ["cat", "linked.txt"]}, ctx), Ask)
    grep = await run(GrepTool(), {"pattern": "secret|plain"}, ctx)
    assert "plain.txt" in grep and "top secret" not in grep


async def test_the_app_passes_its_own_folders_to_tools(tmp_path: Path) -> None:
    from app.api.app import private_app_roots
    from app.settings.paths import AppPaths

    paths = AppPaths(tmp_path / "d", tmp_path / "c", tmp_path / "l", tmp_path / "k")
    assert set(private_app_roots(paths)) == {tmp_path / "d", tmp_path / "c", tmp_path / "l", tmp_path / "k"}


@pytest.mark.parametrize(
    "argv", [["grep", "-r", "SECRET", "."], ["grep", "-rn", "SECRET"], ["grep", "--recursive", "x", "deep"]]
)
async def test_a_recursive_read_does_not_reach_app_files_through_a_hard_link(
    tmp_path: Path, argv: list[str]
) -> None:
    """Issue 23 item 11: `grep -r` over a workspace holding a hard link into the data folder."""
    ws = Path(os.path.realpath(tmp_path)) / "ws"
    data = Path(os.path.realpath(tmp_path)) / "data"
    (ws / "deep/er").mkdir(parents=True)
    data.mkdir()
    (data / "cashcode.sqlite3").write_text("SECRET-DB\n")
    (ws / "notes.txt").write_text("notes\n")
    ctx = ToolContext(workspace=ws, private_roots=(data,))
    assert await verdict(ExecTool(), {"argv": argv}, ctx) == Allow("safe_command")
    os.link(data / "cashcode.sqlite3", ws / "deep/er/innocent.txt")
    asked = await verdict(ExecTool(), {"argv": argv}, ctx)
    assert isinstance(asked, Ask), asked
    why = classify(argv, ["/usr/bin/grep", *argv[1:]], cwd=ws, ctx=ctx)
    assert not why.safe and "hard link" in why.reason and "innocent.txt" in why.reason
    # Any other hard link asks too, as a named one does: its other name may be anywhere.
    os.unlink(ws / "deep/er/innocent.txt")
    (tmp_path / "elsewhere.txt").write_text("x\n")
    os.link(tmp_path / "elsewhere.txt", ws / "deep/shared.txt")
    assert isinstance(await verdict(ExecTool(), {"argv": argv}, ctx), Ask)
    os.unlink(ws / "deep/shared.txt")
    assert await verdict(ExecTool(), {"argv": argv}, ctx) == Allow("safe_command")
