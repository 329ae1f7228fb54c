"""New scheduled tasks default to the Sandboxed mode where a sandbox can start (issue 36); a
task that names its mode keeps it, and existing tasks are unchanged. Through `cashcode tasks`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.sandbox.probe import landlock_abi
from tests.cli.conftest import base_env, cashcode, home

__all__ = ["home"]


def modes(env: dict[str, str], ws: Path) -> dict[str, str]:
    listed = cashcode("tasks", "list", "--json", env=env, cwd=ws)
    assert listed.returncode == 0, listed.stderr
    return {t["name"]: t["approval_mode"] for t in json.loads(listed.stdout)}


@pytest.mark.skipif(landlock_abi({})[0] < 1, reason="needs a kernel with Landlock")
def test_a_new_task_is_sandboxed_where_a_sandbox_can_start(home: Path) -> None:
    env, ws = base_env(home), home / "ws"
    no_sandbox = {**env, "CASHCODE_SANDBOX": "off"}
    old = cashcode("tasks", "add", "old", "--prompt", "p", "--daily", "07:30", env=no_sandbox, cwd=ws)
    assert old.returncode == 0, old.stderr
    assert modes(no_sandbox, ws) == {"old": "read_only"}  # no sandbox here: read-only, as before

    new = cashcode("tasks", "add", "new", "--prompt", "p", "--daily", "08:00", env=env, cwd=ws)
    assert new.returncode == 0, new.stderr
    named = cashcode("tasks", "add", "named", "--prompt", "p", "--daily", "09:00",
                     "--approval-mode", "ask_writes", env=env, cwd=ws)  # fmt: skip
    assert named.returncode == 0, named.stderr
    assert modes(env, ws) == {"old": "read_only", "new": "sandboxed", "named": "ask_writes"}
