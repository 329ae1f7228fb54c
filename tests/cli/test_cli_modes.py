"""`--approval-mode` for ask/chat, the step-limit exit status, and `--version`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import cashcode

WRITE = {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]}


def test_autonomous_runs_what_would_ask_without_a_terminal(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(WRITE, {"text": "Written."})
    result = cashcode("ask", "--approval-mode", "autonomous", "write x", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert (home / "ws" / "x.txt").read_text() == "x"
    assert "Denied" not in result.stderr


def test_read_only_refuses_and_the_default_is_the_saved_setting(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    (home / "config").mkdir()
    (home / "config" / "settings.json").write_text(json.dumps({"approval_mode": "autonomous"}))
    fake_llm.script(WRITE, {"text": "Could not."})
    refused = cashcode("ask", "--approval-mode", "read_only", "write x", env=env, cwd=home / "ws")
    assert refused.returncode == 0, refused.stderr
    assert not (home / "ws" / "x.txt").exists()
    assert "read-only mode" in str(fake_llm.model_requests()[1].body["messages"])
    # Without the flag the saved setting (autonomous) applies, and the flag did not change it.
    fake_llm.script(WRITE, {"text": "Written."})
    saved = cashcode("ask", "write x", env=env, cwd=home / "ws")
    assert saved.returncode == 0, saved.stderr
    assert (home / "ws" / "x.txt").exists()
    assert json.loads((home / "config" / "settings.json").read_text())["approval_mode"] == "autonomous"


def test_a_bad_approval_mode_is_a_usage_error(env: dict[str, str], home: Path) -> None:
    result = cashcode("ask", "--approval-mode", "yolo", "hi", env=env, cwd=home / "ws")
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_ask_stopping_at_the_step_limit_says_so_and_exits_3(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    (home / "ws" / "a.txt").write_text("a")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    fake_llm.script(read, read)
    result = cashcode("ask", "--max-iterations", "2", "loop", env=env, cwd=home / "ws")
    assert result.returncode == 3, result.stderr
    assert "Stopped after 2 model steps" in result.stderr
    assert "Stopped after" not in result.stdout


def test_version_comes_from_the_package_metadata_or_pyproject(home: Path) -> None:
    import tomllib

    from .conftest import REPO, base_env

    expected = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    result = cashcode("--version", env=base_env(home), cwd=home / "ws")
    assert result.returncode == 0 and result.stdout == f"cashcode {expected}\n", result.stderr
