"""The launcher of the private network and /tmp (app/sandbox/launch.py) through the one entry
point, run_confined: it runs unconfined until it restricts itself, so nothing the program's
environment names may load into it; a program the sandbox cannot read raises in the app as it
did without namespaces; a workspace under the host's /tmp stays where it is."""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

import pytest

from app.contracts.tools import SandboxSpec, ToolContext
from app.sandbox.probe import landlock_abi, private_namespaces
from app.tools.confined import run_confined

pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or landlock_abi({})[0] < 1, reason="needs Landlock"
    ),
    pytest.mark.skipif(not private_namespaces({})[0], reason="needs user namespaces (or root)"),
]


def _run(ws: Path, argv: list[str], env: dict[str, str]) -> tuple[int | None, str]:
    ctx = ToolContext(workspace=ws, sandbox=SandboxSpec(True, "Landlock", namespaces=True))

    async def go() -> tuple[int | None, str]:
        outcome = await run_confined(argv, cwd=ws, env=env, timeout=60, cap=65536, ctx=ctx)
        return outcome.returncode, (outcome.stdout.data + outcome.stderr.data).decode()

    return asyncio.run(go())


def test_the_loaders_variables_reach_the_program_but_not_the_unconfined_launcher(tmp_path: Path) -> None:
    missing = tmp_path / "not-a-library.so"
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": str(missing), "LD_CASHCODE_MARK": "kept"}
    code, out = _run(tmp_path, ["/bin/sh", "-c", "echo mark=$LD_CASHCODE_MARK"], env)
    assert code == 0 and "mark=kept" in out, out
    # The dynamic loader complains once per process that tried to preload it: the program only.
    assert out.count("cannot be preloaded") == 1, out


def test_a_program_the_sandbox_cannot_read_raises_permission_error(tmp_path: Path) -> None:
    hidden = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    hidden.mkdir()
    program = hidden / "tool.sh"
    program.write_text("#!/bin/sh\necho ran\n")
    program.chmod(0o755)
    ws = tmp_path / "ws"
    ws.mkdir()
    # Outside every granted folder, and under the host's /tmp, so not even there inside: still
    # the answer exec turns into "run it once without the sandbox?" (not "no such file").
    with pytest.raises(PermissionError):
        _run(ws, [str(program)], {"PATH": "/usr/bin:/bin"})


def test_the_workspace_under_the_hosts_tmp_is_kept_and_tmp_is_private(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "in.txt").write_text("in the workspace\n")
    name = f"cashcode-launch-{uuid.uuid4().hex}"
    code, out = _run(
        ws,
        ["/bin/sh", "-c", f"cat in.txt; pwd; echo t > /tmp/{name} && cat /tmp/{name}; echo w > out.txt"],
        {"PATH": "/usr/bin:/bin"},
    )
    assert code == 0, out
    assert "in the workspace" in out and f"{ws}\nt\n" in out
    assert (ws / "out.txt").read_text() == "w\n"
    assert not (Path("/tmp") / name).exists()


def test_a_workspace_that_is_tmp_stays_the_hosts_tmp_with_a_private_network() -> None:
    name = f"cashcode-launch-{uuid.uuid4().hex}"
    try:
        argv = ["/bin/sh", "-c", f"echo shared > /tmp/{name}"]
        code, out = _run(Path("/tmp"), argv, {"PATH": "/usr/bin:/bin"})
        assert code == 0, out
        assert (Path("/tmp") / name).read_text() == "shared\n"  # the user's chosen workspace
    finally:
        (Path("/tmp") / name).unlink(missing_ok=True)


def test_kept_paths_under_tmp() -> None:
    from app.sandbox.launch import kept_under_tmp

    temp = "/tmp/cashcode-sandbox-x"
    rules = ["/usr", "/tmp/a/ws", "/tmp/a/ws/sub", "/tmp/b", temp, f"{temp}/plan.json", "/tmpx"]
    assert kept_under_tmp(rules, temp) == ["/tmp/a/ws", "/tmp/b"]
    assert kept_under_tmp(["/usr", "/tmp", "/tmp/b"], temp) == ["/tmp"]
