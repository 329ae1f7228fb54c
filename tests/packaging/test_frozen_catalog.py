"""The frozen app installs a PyPI server of the MCP catalog with the `uv` it bundles (issue 28,
acceptance): `mcp-server-time` from the INSTALLED .deb, with a PATH that has no uv of the
machine's, then its tools are listed and one is called. Skips, saying how to build, without a
package. Needs the package index (as `build.py setup` does)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.packaging.artifacts import ROOT
from tests.packaging.installed import Installed, private_env, run_cli

pytestmark = [pytest.mark.timeout(1200)]
DOWNLOADS = ROOT / ".cache" / "test-deps" / "mcp-downloads"


def no_uv_path(folder: Path) -> str:
    """PATH with the machine's Python (uv makes the server's venv from one) but no `uv`: the
    system folders, minus any holding a uv, plus a trap folder whose `uv` leaves a mark."""
    folder.mkdir()
    trap = folder / "uv"
    trap.write_text(f"#!/bin/sh\ntouch '{folder / 'uv-was-run'}'\nexit 97\n", encoding="utf-8")
    trap.chmod(0o755)
    system = [p for p in ("/usr/local/bin", "/usr/bin", "/bin") if not (Path(p) / "uv").exists()]
    return os.pathsep.join([str(folder), *system])


def test_the_installed_app_installs_mcp_server_time_with_its_bundled_uv(
    installed: Installed, tmp_path: Path
) -> None:
    bundled = sorted(installed.program.rglob("uv"))
    assert any(p.is_file() and os.access(p, os.X_OK) for p in bundled), "no uv in the bundle"
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **private_env(tmp_path / "cashcode"),
        "HOME": str(home),
        "PATH": no_uv_path(tmp_path / "bin"),
        "CASHCODE_MCP_DOWNLOAD_CACHE": str(DOWNLOADS),  # uv's download cache only, kept between runs
    }
    done = run_cli(installed.cli, ["mcp", "install", "mcp-server-time", "--yes"], env, tmp_path, 900)
    assert done.returncode == 0, done.stdout + done.stderr
    commands = [line[2:] for line in done.stdout.splitlines() if line.startswith("$ ")]
    uv = Path(commands[0].split()[0])
    assert uv.is_relative_to(installed.program.resolve()) or uv.is_relative_to(installed.program), commands
    assert "pip install" in commands[-1] and "mcp-server-time==" in commands[-1]
    assert not (tmp_path / "bin" / "uv-was-run").exists()
    folder = tmp_path / "cashcode" / "cache" / "mcp_servers" / "time"
    assert (folder / ".cashcode-install.json").is_file()

    tools = run_cli(installed.cli, ["mcp", "tools", "time"], env, tmp_path, 180)
    assert tools.returncode == 0, tools.stderr
    assert "get_current_time" in tools.stdout and "convert_time" in tools.stdout
    call = ["mcp", "call", "time", "get_current_time", "--args", json.dumps({"timezone": "UTC"})]
    called = run_cli(installed.cli, call, env, tmp_path, 180)
    assert called.returncode == 0, called.stderr
    assert '"timezone": "UTC"' in called.stdout and '"datetime"' in called.stdout, called.stdout

    gone = run_cli(installed.cli, ["mcp", "uninstall", "time"], env, tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert not folder.exists()
    assert shutil.which("uv", path=env["PATH"]) == str(tmp_path / "bin" / "uv")  # the trap was there
