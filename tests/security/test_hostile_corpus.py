"""A hostile workspace through every tool that runs without asking: symlinks out, hard links,
FIFOs, a huge file, a device node. Nothing outside is read, nothing blocks, output stays capped."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import Tool, ToolContext, ToolError
from app.tools.approvals import Allow, decide
from app.tools.exec import ExecTool
from app.tools.fs import READ_CAP_BYTES, ListDirTool, ReadFileTool
from app.tools.search import GlobTool, GrepTool

from .conftest import MemoryLedger

BOUND_S = 20.0  # generous: a blocked FIFO read would hang forever, not take 20 s


@pytest.fixture
def hostile(workspace: Path, outside: Path) -> Path:
    (workspace / "link-out.txt").symlink_to(outside / "secret.txt")
    (workspace / "dir-out").symlink_to(outside)
    os.link(outside / "secret.txt", workspace / "hard.txt")
    os.mkfifo(workspace / "pipe")
    with open(workspace / "huge.txt", "wb") as fh:
        fh.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of NUL bytes, no disk cost
    (workspace / "big.txt").write_text("line secret-free\n" * 100_000)
    (workspace / "ok.txt").write_text("plain\n")
    return workspace


async def attempt(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> str:
    """Run the call if it is auto-approved; the text the model would get (or 'ASKS'/error)."""
    try:
        prepared = await tool.prepare(args, ctx)
    except ToolError as exc:
        return f"REFUSED {exc}"
    if decide(tool, prepared, mode="ask_writes", policies={}, ledger=MemoryLedger()) != Allow(
        "read_only" if tool.read_only else "safe_command"
    ):
        return "ASKS"
    try:
        result = await asyncio.wait_for(tool.execute(prepared, ctx), BOUND_S)
    except ToolError as exc:
        return f"ERROR {exc}"
    return result.content


CALLS: list[tuple[Tool, dict[str, Any]]] = [
    (ReadFileTool(), {"path": "link-out.txt"}),
    (ReadFileTool(), {"path": "dir-out/secret.txt"}),
    (ReadFileTool(), {"path": "hard.txt"}),
    (ReadFileTool(), {"path": "pipe"}),
    (ReadFileTool(), {"path": "huge.txt"}),
    (ReadFileTool(), {"path": "big.txt"}),
    (ListDirTool(), {"path": "."}),
    (ListDirTool(), {"path": "dir-out"}),
    (GlobTool(), {"pattern": "**/*"}),
    (GrepTool(), {"pattern": "secret"}),
    (GrepTool(), {"pattern": "secret", "path": "pipe"}),
    (ExecTool(), {"argv": ["cat", "link-out.txt"]}),
    (ExecTool(), {"argv": ["cat", "hard.txt"]}),
    (ExecTool(), {"argv": ["cat", "pipe"]}),
    (ExecTool(), {"argv": ["head", "-c", "10", "pipe"]}),
    (ExecTool(), {"argv": ["wc", "-c", "huge.txt"]}),
    (ExecTool(), {"argv": ["grep", "-r", "secret", "."]}),
    (ExecTool(), {"argv": ["ls", "-la", "dir-out/"]}),
    (ExecTool(), {"argv": ["cat", "big.txt"]}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[f"{t.name}:{a}" for t, a in CALLS])
async def test_nothing_outside_is_read_nothing_blocks_output_stays_capped(
    hostile: Path, ctx: ToolContext, tool: Tool, args: dict[str, Any]
) -> None:
    text = await attempt(tool, args, ctx)
    assert "top secret" not in text, (tool.name, args, text[:200])
    assert len(text) <= READ_CAP_BYTES + 64 * 1024 * 2 + 4096


async def test_special_files_are_never_auto_approved_for_commands(hostile: Path, ctx: ToolContext) -> None:
    for argv in (["cat", "pipe"], ["head", "pipe"], ["cat", "hard.txt"]):
        assert await attempt(ExecTool(), {"argv": argv}, ctx) == "ASKS", argv
