"""`cashcode memory … --agent NAME` and `cashcode memories … --agent NAME`: an agent's own
memory from the terminal (issue 38), in real subprocesses; without --agent the shared one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import cashcode, env, fake_llm, home

__all__ = ["env", "fake_llm", "home"]


def test_memories_and_memory_commands_take_an_agents_own_memory(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    ws = home / "ws"
    unknown_first = cashcode("memories", "list", "--agent", "scribe", env=env, cwd=ws)
    assert unknown_first.returncode == 1 and "no agent named 'scribe'" in unknown_first.stderr
    assert not (home / "data" / "cashcode.sqlite3").exists()  # a read creates nothing

    added = cashcode("agents", "add", "Scribe", "--persona", "x", "--memory", "own", env=env, cwd=ws)
    assert added.returncode == 0, added.stderr
    own = cashcode("memories", "add", "prefers tea", "--agent", "scribe", "--yes", env=env, cwd=ws)
    assert own.returncode == 0, own.stderr
    shared = cashcode("memories", "add", "likes maps", "--yes", env=env, cwd=ws)
    assert shared.returncode == 0, shared.stderr

    def listed(*agent: str) -> list[str]:
        out = cashcode("memories", "list", "--json", *agent, env=env, cwd=ws)
        assert out.returncode == 0, out.stderr
        return [m["content"] for m in json.loads(out.stdout)]

    assert listed("--agent", "Scribe") == ["prefers tea"]
    assert listed() == ["likes maps"]
    found = cashcode("memories", "search", "tea", "--json", "--agent", "scribe", env=env, cwd=ws)
    assert [m["content"] for m in json.loads(found.stdout)] == ["prefers tea"]
    assert json.loads(cashcode("memories", "search", "tea", "--json", env=env, cwd=ws).stdout) == []

    # `memory` reads the agent's own MEMORY.md: the agent's id goes with each request.
    shown = cashcode("memory", "show", "--agent", "scribe", env=env, cwd=ws)
    assert shown.returncode == 0, shown.stderr
    assert "agents" in shown.stderr and "MEMORY.md is empty" in shown.stderr, shown.stderr
    missing = cashcode("memory", "show", "--agent", "nobody", env=env, cwd=ws)
    assert missing.returncode == 1 and "no agent named 'nobody'" in missing.stderr
