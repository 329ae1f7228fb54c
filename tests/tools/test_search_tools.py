"""glob and grep: bounded results inside the workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import Tool, ToolContext, ToolError, ToolResult
from app.tools.search import GlobTool, GrepTool


async def run(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return await tool.execute(await tool.prepare(args, ctx), ctx)


def _tree(ws: Path) -> None:
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "main.py").write_text("import os\nprint('hello')\n")
    (ws / "src" / "pkg" / "util.py").write_text("def hello():\n    return 'HELLO'\n")
    (ws / "README.md").write_text("hello readme\n")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("hello git\n")


async def test_glob_matches_recursive_patterns_relative_to_the_workspace(
    workspace: Path, ctx: ToolContext
) -> None:
    _tree(workspace)
    result = await run(GlobTool(), {"pattern": "**/*.py"}, ctx)
    assert result.content.splitlines() == ["src/main.py", "src/pkg/util.py"]
    scoped = await run(GlobTool(), {"pattern": "*.py", "path": "src/pkg"}, ctx)
    assert scoped.content == "src/pkg/util.py"


async def test_glob_returns_at_most_100_results_with_a_marker(workspace: Path, ctx: ToolContext) -> None:
    for i in range(150):
        (workspace / f"f{i:03}.txt").touch()
    result = await run(GlobTool(), {"pattern": "*.txt"}, ctx)
    lines = result.content.splitlines()
    assert result.truncated and len(lines) == 101 and lines[-1].startswith("[truncated")


async def test_grep_finds_regex_matches_with_path_and_line(workspace: Path, ctx: ToolContext) -> None:
    _tree(workspace)
    result = await run(GrepTool(), {"pattern": r"hel+o", "glob": "*.py"}, ctx)
    assert result.content.splitlines() == ["src/main.py:2: print('hello')", "src/pkg/util.py:1: def hello():"]
    insensitive = await run(GrepTool(), {"pattern": "HELLO", "path": "src/pkg", "ignore_case": True}, ctx)
    assert insensitive.content.splitlines() == [
        "src/pkg/util.py:1: def hello():",
        "src/pkg/util.py:2:     return 'HELLO'",
    ]


async def test_grep_skips_binary_huge_files_and_git_internals(workspace: Path, ctx: ToolContext) -> None:
    _tree(workspace)
    (workspace / "blob.bin").write_bytes(b"\x00hello\x00")
    (workspace / "huge.txt").write_text("hello\n" * 500_000)
    result = await run(GrepTool(), {"pattern": "hello"}, ctx)
    files = {line.split(":", 1)[0] for line in result.content.splitlines()}
    assert files == {"README.md", "src/main.py", "src/pkg/util.py"}


async def test_grep_returns_at_most_50_matches(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "many.txt").write_text("match\n" * 80)
    result = await run(GrepTool(), {"pattern": "match"}, ctx)
    assert result.truncated and len(result.content.splitlines()) == 51


async def test_grep_reports_an_invalid_regex_clearly(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="Invalid regular expression"):
        await GrepTool().prepare({"pattern": "("}, ctx)


async def test_glob_lists_a_symlinked_folder_inside_the_workspace_without_descending_into_it(
    workspace: Path, ctx: ToolContext
) -> None:
    _tree(workspace)
    (workspace / "alias").symlink_to(workspace / "src", target_is_directory=True)
    result = await run(GlobTool(), {"pattern": "*"}, ctx)
    assert result.content.splitlines() == ["README.md", "alias/", "src/"]
    nested = await run(GlobTool(), {"pattern": "**/*.py"}, ctx)
    assert nested.content.splitlines() == ["src/main.py", "src/pkg/util.py"]
