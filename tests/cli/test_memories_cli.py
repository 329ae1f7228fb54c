"""`cashcode memories …`, `cashcode memory …` in real subprocesses (no terminal: writes need --yes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import base_env, cashcode


@pytest.fixture
def plain_env(home: Path) -> dict[str, str]:
    return base_env(home)


def test_add_list_search_update_delete(plain_env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    refused = cashcode("memories", "add", "Use uv for Python", "--tag", "python", env=plain_env, cwd=ws)
    assert refused.returncode == 1 and "Not added" in refused.stdout and "--yes" in refused.stderr
    assert json.loads(cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout) == []

    added = cashcode(
        "memories",
        "add",
        "Use uv for Python",
        "--tag",
        "python",
        "--tag",
        "tooling",
        "--yes",
        env=plain_env,
        cwd=ws,
    )
    assert added.returncode == 0, added.stderr
    memory_id = added.stdout.strip().splitlines()[-1]
    assert len(memory_id) == 36 and memory_id in added.stdout.splitlines()[0]  # the shown id is the stored id
    cashcode("memories", "add", "Tea, no sugar", "--yes", env=plain_env, cwd=ws)

    items = json.loads(cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout)
    assert {tuple(sorted(i)) for i in items} == {("content", "created_at", "id", "tags", "updated_at")}
    found = json.loads(
        cashcode("memories", "search", "uv", "--tag", "python", "--json", env=plain_env, cwd=ws).stdout
    )
    assert [(f["id"], f["tags"]) for f in found] == [(memory_id, ["python", "tooling"])]
    none = json.loads(cashcode("memories", "search", "uv", "tea", "--json", env=plain_env, cwd=ws).stdout)
    assert none == []

    # A unique prefix names a memory (tests/cli/test_memories_terminal.py); no match changes nothing.
    bad = cashcode("memories", "delete", "../etc", "--yes", env=plain_env, cwd=ws)
    assert bad.returncode == 1 and "no memory id starts with" in bad.stderr
    asked = cashcode("memories", "update", memory_id, "--content", "Use uv sync", env=plain_env, cwd=ws)
    assert asked.returncode == 1 and "before:" in asked.stdout and "Use uv sync" in asked.stdout
    updated = cashcode(
        "memories",
        "update",
        memory_id,
        "--content",
        "Use uv sync",
        "--tag",
        "python",
        "--yes",
        env=plain_env,
        cwd=ws,
    )
    assert updated.returncode == 0, updated.stderr
    found = json.loads(cashcode("memories", "search", "sync", "--json", env=plain_env, cwd=ws).stdout)
    assert [(f["content"], f["tags"]) for f in found] == [("Use uv sync", ["python"])]
    deleted = cashcode("memories", "delete", memory_id, "--yes", env=plain_env, cwd=ws)
    assert deleted.returncode == 0 and memory_id in deleted.stdout
    assert len(json.loads(cashcode("memories", "list", "--json", env=plain_env, cwd=ws).stdout)) == 1


def test_memory_show_versions_and_revert(plain_env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    data = Path(plain_env["CASHCODE_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    (data / "MEMORY.md").write_text("- first\n", encoding="utf-8")
    assert cashcode("memory", "show", env=plain_env, cwd=ws).stdout == "- first\n"
    (data / "MEMORY.md").write_text("- second\n", encoding="utf-8")
    listed = cashcode("memory", "versions", env=plain_env, cwd=ws)
    assert listed.returncode == 0 and "disk" in listed.stdout
    assert cashcode("memory", "show", env=plain_env, cwd=ws).stdout == "- second\n"
    reverted = cashcode("memory", "revert", "1", env=plain_env, cwd=ws)
    assert reverted.returncode == 0, reverted.stderr
    assert (data / "MEMORY.md").read_text(encoding="utf-8") == "- first\n"
    missing = cashcode("memory", "revert", "99", env=plain_env, cwd=ws)
    assert missing.returncode == 1 and "not found" in missing.stderr

    (data / "MEMORY.md").write_bytes(b"\xff\xfe broken")
    broken = cashcode("memory", "show", env=plain_env, cwd=ws)
    assert broken.returncode == 1 and "not valid UTF-8" in broken.stderr
    assert (data / "MEMORY.md").read_bytes() == b"\xff\xfe broken"


def test_dream_now_prints_what_changed(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    ws = home / "ws"
    fake_llm.script({"text": "Nice cat."})
    asked = cashcode("ask", "My cat is called Miso.", env=env, cwd=ws)
    assert asked.returncode == 0, asked.stderr
    fake_llm.script({"text": "ADD: cat Miso"}, {"text": "- Has a cat called Miso"})
    dreamed = cashcode("dream", "--now", env=env, cwd=ws)
    assert dreamed.returncode == 0, dreamed.stderr
    assert "MEMORY.md updated." in dreamed.stdout and "+- Has a cat called Miso" in dreamed.stdout
    again = cashcode("dream", "--now", env=env, cwd=ws)
    assert again.returncode == 0 and "No new chat history" in again.stdout
    assert cashcode("memory", "show", env=env, cwd=ws).stdout == "- Has a cat called Miso\n"
