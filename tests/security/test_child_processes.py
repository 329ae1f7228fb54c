"""Child processes: an allow-listed environment, and escapees from the process group still die."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from app.contracts.tools import ToolContext
from app.tools.exec import ExecTool
from app.tools.exec_env import command_env

PY = sys.executable
LINUX = sys.platform.startswith("linux")


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return "State:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True


async def until_gone(pid: int, limit: float = 10.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not gone(pid):  # noqa: ASYNC110  polls /proc: no event to await
        await asyncio.sleep(0.02)
    return gone(pid)


def test_only_allow_listed_names_and_the_users_extra_names_pass() -> None:
    base = {
        "PATH": "/usr/bin",
        "HOME": "/h",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TERM": "xterm",
        "PGPASSWORD": "pg",
        "DATABASE_URL": "postgres://u:p@h/db",
        "GH_PAT": "ghp",
        "AWS_SESSION_TOKEN": "aws",
        "SOME_TOOL_HOME": "/opt/t",
        "RIPGREP_CONFIG_PATH": "/x",
    }
    env = command_env(base, is_git=False)
    assert env == {"PATH": "/usr/bin", "HOME": "/h", "LANG": "C.UTF-8", "LC_ALL": "C", "TERM": "xterm"}
    more = command_env(base, is_git=False, extra=("SOME_TOOL_HOME", "DATABASE_URL", "RIPGREP_CONFIG_PATH"))
    assert more["SOME_TOOL_HOME"] == "/opt/t" and more["DATABASE_URL"].startswith("postgres")
    assert "RIPGREP_CONFIG_PATH" not in more and "PGPASSWORD" not in more


async def test_exec_children_see_only_the_allow_list(workspace: Path) -> None:
    env = dict(os.environ, PGPASSWORD="pg-secret", DATABASE_URL="postgres://x", EXTRA_OK="yes")
    names = "('PGPASSWORD', 'DATABASE_URL', 'EXTRA_OK', 'PATH')"
    code = f"import os; print(sorted(k for k in os.environ if k in {names}))"
    tool = ExecTool(env=env)
    for extra, expected in (((), "['PATH']"), (("EXTRA_OK",), "['EXTRA_OK', 'PATH']")):
        ctx = ToolContext(workspace=workspace, env_allow=extra)
        result = await tool.execute(await tool.prepare({"argv": [PY, "-c", code]}, ctx), ctx)
        assert expected in result.content, result.content


ESCAPE = """
import os, subprocess, sys
child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True)
print(child.pid, flush=True)
if sys.argv[1] == 'orphan':
    os._exit(0)  # the escaped child is re-parented away from us
import time; time.sleep(120)
"""


@pytest.mark.skipif(not LINUX, reason="escape tracking reads /proc (Linux only)")
@pytest.mark.parametrize("how", ["orphan", "timeout"])
async def test_a_setsid_escapee_is_killed_when_the_call_ends(how: str, ctx: ToolContext) -> None:
    tool = ExecTool()
    args = {"argv": [PY, "-c", ESCAPE, how], "timeout": 2 if how == "timeout" else 30}
    result = await tool.execute(await tool.prepare(args, ctx), ctx)
    escaped = int(result.content.split("--- stdout ---\n", 1)[1].split()[0])
    assert await until_gone(escaped)


@pytest.mark.skipif(not LINUX, reason="escape tracking reads /proc (Linux only)")
async def test_a_setsid_escapee_is_killed_on_stop(ctx: ToolContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    write_pid = f"open({str(pid_file)!r}, 'w').write(str(child.pid))"
    code = ESCAPE.replace("print(child.pid, flush=True)", write_pid)
    tool = ExecTool()
    prepared = await tool.prepare({"argv": [PY, "-c", code, "stay"], "timeout": 60}, ctx)
    task = asyncio.ensure_future(tool.execute(prepared, ctx))
    deadline = time.monotonic() + 10
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:  # noqa: ASYNC110  a child's file
        await asyncio.sleep(0.02)
    escaped = int(pid_file.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await until_gone(escaped)
