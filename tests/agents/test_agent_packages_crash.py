"""A package install killed (SIGKILL) at each step leaves the old state or the whole new one,
never a mix: the next command finishes or drops it (app/agents/package_install.py)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.test_agent_packages_serve import SCRIPT, _files, _manifest, _zip
from tests.cli.conftest import base_env, cashcode

REPO = Path(__file__).resolve().parents[2]


def _run_until(env: dict[str, str], package: Path, step: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.agents.package_crash_worker", str(package), step],
        env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.startswith("PAUSED"), (line, child.stderr.read() if child.stderr else "")
    return child


def _kill(child: subprocess.Popen[str]) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.communicate(timeout=30)  # also closes its pipes


def _state(env: dict[str, str], home: Path) -> dict[str, Any]:
    """What the next command sees (it runs the recovery first)."""
    listed = cashcode("agents", "list", "--json", env=env, cwd=home)
    assert listed.returncode == 0, listed.stderr
    data = home / "data"
    servers = data / "mcp" / "servers.json"
    script = data / "skills" / "user" / "greeter" / "scripts" / "hello.py"
    staging = data / "agents" / "staging"
    return {
        "agents": [a["spec"]["name"] for a in json.loads(listed.stdout)],
        "script": script.read_bytes() if script.exists() else None,
        "servers": sorted(json.loads(servers.read_text())["servers"]) if servers.exists() else [],
        "staging": sorted(p.name for p in staging.iterdir()) if staging.exists() else [],
    }


ABSENT = {"agents": ["default"], "script": None, "servers": [], "staging": []}
WHOLE = {"agents": ["default", "Greeter"], "script": SCRIPT, "servers": ["echo"], "staging": []}


@pytest.mark.parametrize(
    ("step", "expect"),
    [("install:staged", ABSENT), ("install:committed", WHOLE), ("publish:moved", WHOLE)],
)
def test_an_install_killed_at_any_step_is_all_or_nothing(
    tmp_path: Path, step: str, expect: dict[str, Any]
) -> None:
    env = base_env(tmp_path)
    package = _zip(tmp_path / "p.cashagent", _manifest(), _files())
    _kill(_run_until(env, package, step))
    assert _state(env, tmp_path) == expect


def _version(home: Path) -> int:
    with contextlib.closing(sqlite3.connect(home / "data" / "cashcode.sqlite3")) as db:
        (version,) = db.execute("SELECT version FROM agent_packages").fetchone()
    return int(version)


@pytest.mark.parametrize(("step", "expect_version"), [("install:staged", 1), ("publish:moved", 2)])
def test_an_update_killed_mid_install_leaves_version_1_or_the_whole_version_2(
    tmp_path: Path, step: str, expect_version: int
) -> None:
    env = base_env(tmp_path)
    v1 = _zip(tmp_path / "v1.cashagent", _manifest(), _files())
    first = subprocess.run(
        [sys.executable, "-m", "tests.agents.package_crash_worker", str(v1), "never"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "DONE" in first.stdout, first.stderr
    manifest = _manifest()
    manifest["version"] = 2
    bye = b"print('bye')\n"
    manifest["skills"][0]["files"].append(
        {"path": "scripts/bye.py", "sha256": hashlib.sha256(bye).hexdigest(), "size": len(bye)}
    )
    v2 = _zip(tmp_path / "v2.cashagent", manifest, {**_files(), "skills/greeter/scripts/bye.py": bye})
    _kill(_run_until(env, v2, step))
    assert _state(env, tmp_path) == WHOLE
    assert _version(tmp_path) == expect_version
    scripts = sorted(
        p.name for p in (tmp_path / "data" / "skills" / "user" / "greeter" / "scripts").iterdir()
    )
    assert scripts == (["hello.py"] if expect_version == 1 else ["bye.py", "hello.py"])
