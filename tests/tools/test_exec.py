"""exec: argv only, resolved once, stdin closed, capped output, timeout and cancellation kill the group."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from app.contracts.tools import ToolContext, ToolError, ToolResult
from app.tools.exec import ExecTool
from app.tools.exec_env import command_env

PY = sys.executable


async def run(args: dict[str, Any], ctx: ToolContext, tool: ExecTool | None = None) -> ToolResult:
    tool = tool or ExecTool()
    return await tool.execute(await tool.prepare(args, ctx), ctx)


def process_gone(pid: int) -> bool:
    """Gone = no such process, or only a zombie awaiting its (non-us) parent's reaping."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


async def wait_until(predicate: Any, limit: float = 10.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()


async def test_exec_runs_an_argv_in_the_workspace_and_reports_the_exit_code(
    workspace: Path, ctx: ToolContext
) -> None:
    result = await run({"argv": ["pwd"]}, ctx)
    assert result.ok and result.content == f"Exit code: 0\n--- stdout ---\n{workspace}\n"
    failing = await run({"argv": [PY, "-c", "import sys; sys.stderr.write('bad'); sys.exit(3)"]}, ctx)
    assert not failing.ok and failing.content == "Exit code: 3\n--- stderr ---\nbad"


async def test_exec_resolves_the_program_once_to_an_absolute_path_shown_in_the_approval(
    ctx: ToolContext,
) -> None:
    prepared = await ExecTool().prepare({"argv": ["python3", "-c", "print(1)"]}, ctx)
    argv = prepared.state.argv
    assert argv[0] == shutil.which("python3") and os.path.isabs(argv[0])
    assert prepared.approval is not None
    assert prepared.approval.argv == argv
    assert prepared.approval.grant_key is not None and prepared.approval.grant_key.key == argv
    assert prepared.approval.detail.startswith(f"{argv[0]} -c 'print(1)'")


async def test_execute_runs_the_prepared_argv_even_if_path_changes_afterwards(
    workspace: Path, ctx: ToolContext
) -> None:
    env = dict(os.environ)
    tool = ExecTool(env=env)
    prepared = await tool.prepare({"argv": ["pwd"]}, ctx)
    bindir = workspace / "evil"
    bindir.mkdir()
    fake = bindir / "pwd"
    fake.write_text("#!/bin/sh\necho hijacked\n")
    fake.chmod(0o755)
    env["PATH"] = f"{bindir}:{env['PATH']}"
    result = await tool.execute(prepared, ctx)
    assert "hijacked" not in result.content and str(workspace) in result.content


async def test_exec_refuses_a_string_command_and_unknown_programs(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="array of strings"):
        await ExecTool().prepare({"argv": "ls -la"}, ctx)
    with pytest.raises(ToolError, match="not found on PATH"):
        await ExecTool().prepare({"argv": ["definitely-not-a-program-xyz"]}, ctx)
    with pytest.raises(ToolError, match="between 1 and 300"):
        await ExecTool().prepare({"argv": ["pwd"], "timeout": 301}, ctx)


async def test_exec_runs_in_a_validated_subfolder(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "sub").mkdir()
    result = await run({"argv": ["pwd"], "cwd": "sub"}, ctx)
    assert result.content.endswith(f"{workspace / 'sub'}\n")


async def test_exec_closes_stdin_so_cat_without_arguments_returns_at_once(ctx: ToolContext) -> None:
    result = await run({"argv": ["cat"], "timeout": 60}, ctx)
    assert result.ok and result.content == "Exit code: 0"


async def test_exec_keeps_the_exit_code_stdout_head_and_tail_and_stderr_within_the_budget(
    ctx: ToolContext,
) -> None:
    code = (
        "import sys; sys.stdout.write('HEAD' + 'o' * 200000 + 'TAIL'); "
        "sys.stderr.write('e' * 100 + 'the real error'); sys.exit(3)"
    )
    result = await run({"argv": [PY, "-c", code]}, ctx)
    assert result.truncated
    assert len(result.content) <= ctx.output_budget
    assert result.content.startswith("Exit code: 3")
    assert "e" * 100 + "the real error" in result.content
    assert "--- stdout ---\nHEADooo" in result.content and "oooTAIL" in result.content
    assert "bytes left out here (200008 bytes in all" in result.content


async def test_exec_keeps_the_end_of_a_long_stderr_and_says_what_it_left_out(ctx: ToolContext) -> None:
    code = "import sys; sys.stderr.write('x' * (3 * 65536) + 'LAST ERROR LINE'); sys.exit(2)"
    result = await run({"argv": [PY, "-c", code]}, ctx)
    assert len(result.content) <= ctx.output_budget
    assert result.content.startswith("Exit code: 2")
    assert result.content.endswith("LAST ERROR LINE")
    assert f"of {3 * 65536 + 15} bytes are left out; the end is shown]" in result.content


async def test_exec_timeout_kills_the_process_and_reports_it(ctx: ToolContext) -> None:
    result = await run({"argv": [PY, "-c", "import time; time.sleep(30)"], "timeout": 1}, ctx)
    assert not result.ok and result.content.startswith("Timed out after 1 s")
    assert await wait_until(lambda: process_gone(result.metadata["pid"]))


def _sleeper_code(pid_dir: Path, spawn_grandchild: bool) -> str:
    """Python code that records its pid (and a grandchild's) in files, then sleeps."""
    lines = ["import os, subprocess, sys, time"]
    if spawn_grandchild:
        lines += [
            "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])",
            f"open({str(pid_dir / 'grandchild')!r}, 'w').write(str(g.pid))",
        ]
    lines += [f"open({str(pid_dir / 'child')!r}, 'w').write(str(os.getpid()))", "time.sleep(30)"]
    return "\n".join(lines)


@pytest.mark.parametrize("spawn_grandchild", [False, True])
async def test_cancelling_exec_returns_within_a_second_and_leaves_no_process(
    spawn_grandchild: bool, workspace: Path, ctx: ToolContext
) -> None:
    tool = ExecTool()
    code = _sleeper_code(workspace, spawn_grandchild)
    prepared = await tool.prepare({"argv": [PY, "-c", code], "timeout": 60}, ctx)
    task = asyncio.ensure_future(tool.execute(prepared, ctx))
    names = ["child", "grandchild"] if spawn_grandchild else ["child"]
    assert await wait_until(
        lambda: all((workspace / n).exists() and (workspace / n).read_text() for n in names)
    )
    pids = [int((workspace / n).read_text()) for n in names]
    assert not any(process_gone(p) for p in pids)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1.0
    assert await wait_until(lambda: all(process_gone(p) for p in pids))


async def test_exec_environment_drops_secrets_and_git_overrides() -> None:
    base = {"PATH": "/usr/bin", "OPENAI_API_KEY": "sk", "GITHUB_TOKEN": "t", "DB_PASSWORD": "p", "HOME": "/h",
            "GIT_DIR": "/elsewhere", "RIPGREP_CONFIG_PATH": "/x", "TOKENIZERS_PARALLELISM": "1"}  # fmt: skip
    plain = command_env(base, is_git=False)
    assert plain == {"PATH": "/usr/bin", "HOME": "/h"}  # an allow-list: unknown names stay out
    assert command_env(base, is_git=False, extra=("GIT_DIR",))["GIT_DIR"] == "/elsewhere"
    git = command_env(base, is_git=True, extra=("GIT_DIR",))
    assert "GIT_DIR" not in git and git["GIT_OPTIONAL_LOCKS"] == "0"


async def test_exec_child_does_not_see_secret_variables(ctx: ToolContext) -> None:
    env = dict(os.environ, MY_API_KEY="sekrit", VISIBLE="yes")
    code = "import os; print(os.environ.get('MY_API_KEY'), os.environ.get('VISIBLE'))"
    ctx = ToolContext(workspace=ctx.workspace, env_allow=("VISIBLE",))
    result = await run({"argv": [PY, "-c", code]}, ctx, ExecTool(env=env))
    assert "None yes" in result.content
