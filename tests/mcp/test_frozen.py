"""A frozen (PyInstaller) build runs the MCP child guard and the built-in servers through its own
executable (app/mcp/frozen.py), never through a Python found on the machine. The frozen
executable is simulated by a small program that sets `sys.frozen` and runs the real frozen
entry point (app/desktop/__main__.py); the app process sets `sys.frozen` and points
`sys.executable` at it, as PyInstaller does."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from app.mcp import frozen
from app.mcp.catalog import builtin_dir, load_builtin
from app.mcp.transports import guarded_argv
from app.sandbox.confine import launcher_argv
from app.sandbox.probe import private_namespaces
from tests.mcp.test_child_lifetime import HOLDER, descendants, kill_and_check

ROOT = Path(__file__).resolve().parents[2]


def fake_executable(folder: Path) -> Path:
    """Stands in for dist/CashCode/CashCode: the bundled interpreter + the frozen entry."""
    exe = folder / "CashCode"
    exe.write_text(
        f"#!{sys.executable}\n"
        "import runpy, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "sys.frozen = True\n"
        'runpy.run_module("app.desktop", run_name="__main__")\n',
        encoding="utf-8",
    )
    exe.chmod(0o755)
    return exe


def test_frozen_command_lines_use_the_executable_not_a_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/CashCode/CashCode")
    entries = {e.name: e for e in load_builtin(builtin_dir())}
    stdio = entries["test_stdio_mcp"]
    assert stdio.argv[:2] == ("/opt/CashCode/CashCode", "--mcp-builtin")
    assert stdio.argv[2].endswith("test_stdio_mcp/server.py") and len(stdio.argv) == 3
    http = entries["test_http_mcp"].launch
    assert http is not None and http.command == "/opt/CashCode/CashCode"
    assert http.args[0] == "--mcp-builtin" and http.args[2:] == ("--port", "${port}")
    guard = guarded_argv(["prog", "a"])
    assert guard == ["/opt/CashCode/CashCode", "--mcp-guard", str(os.getpid()), "prog", "a"]
    monkeypatch.setattr(sys, "frozen", False)
    assert guarded_argv(["prog"])[1:4] == ["-I", "-S", str(frozen.GUARD)]
    source = {e.name: e for e in load_builtin(builtin_dir())}["test_stdio_mcp"]
    # from source: a script, isolated from the current folder and PYTHON* variables (issue 33.1)
    assert source.argv[:2] == (sys.executable, "-I") and source.argv[2].endswith("server.py")


def test_the_hidden_entry_runs_only_bundled_server_scripts(tmp_path: Path) -> None:
    exe = fake_executable(tmp_path)
    outside = tmp_path / "evil.py"
    outside.write_text("print('ran')\n", encoding="utf-8")
    for target in (str(outside), str(builtin_dir() / "mcp_config.json"), str(builtin_dir() / ".." / "x.py")):
        done = subprocess.run([str(exe), "--mcp-builtin", target], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "not a built-in MCP server script" in done.stderr
        assert "ran" not in done.stdout


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not private_namespaces({})[0], reason="needs user namespaces"
)
def test_a_frozen_build_starts_the_sandbox_launcher_through_its_own_executable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = fake_executable(tmp_path)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    argv = launcher_argv(7, 8, tmp_path, [], ["/bin/true"])
    assert argv[:2] == [str(exe), "--sandbox-launch"] and argv[-2:] == ["--", "/bin/true"]
    # the executable's hidden entry runs the launcher (its probe enters the namespaces)
    assert private_namespaces({}) == (True, "a private network and /tmp for each program")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_frozen_builtin_servers_work_and_die_with_the_app(tmp_path: Path) -> None:
    exe = fake_executable(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen(
        [sys.executable, str(HOLDER), str(tmp_path / "base"), "--frozen", str(exe)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert holder.stdout is not None
        ready, _, _ = select.select([holder.stdout], [], [], 180)
        assert ready, "the app did not connect its servers in time"
        assert holder.stdout.readline().strip() == "READY"  # connected and said hello
        kids = descendants(holder.pid)
        cmdlines = {pid: _cmdline(pid) for pid in kids}
        guards = [c for c in cmdlines.values() if c[:2] == [str(exe), "--mcp-guard"]]
        servers = [c for c in cmdlines.values() if c[:2] == [str(exe), "--mcp-builtin"]]
        assert len(guards) == 2 and len(servers) == 2, cmdlines
        assert not any(str(frozen.GUARD) in " ".join(c) for c in cmdlines.values())
        kill_and_check(holder, kids)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def _cmdline(pid: int) -> list[str]:
    """argv of a process; the fake executable is a script, so its interpreter comes first."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    parts = [p.decode() for p in raw.split(b"\0") if p]
    return parts[1:] if parts and parts[0] == sys.executable else parts
