"""`cashcode import PATH [--dry-run] [--yes]` as a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import base_env, cashcode

CHAT = "0d5b2c4e-1f3a-4b6c-8d7e-9f0a1b2c3d4e"


def _folder(root: Path) -> Path:
    chat = root / "old" / "server" / "memory" / CHAT
    chat.mkdir(parents=True)
    lines = [
        {"cursor": 1, "role": "user", "content": "hi"},
        {"cursor": 2, "role": "assistant", "content": "hello"},
    ]
    (chat / "history.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    return root / "old"


def test_dry_run_shows_the_plan_then_yes_imports_and_a_rerun_imports_nothing(home: Path) -> None:
    env = base_env(home)
    source = _folder(home)
    dry = cashcode("import", str(source), "--dry-run", env=env, cwd=home / "ws")
    assert dry.returncode == 0, dry.stderr
    assert "CashCode data folder" in dry.stdout and "[to import] chat: hi" in dry.stdout
    assert "1 to import, 0 skipped." in dry.stdout
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert "No chats yet." in listed.stdout

    no_terminal = cashcode("import", str(source), env=env, cwd=home / "ws")
    assert no_terminal.returncode == 1
    assert "--yes" in no_terminal.stderr

    done = cashcode("import", str(source), "--yes", env=env, cwd=home / "ws")
    assert done.returncode == 0, done.stderr
    assert "[imported] chat: hi" in done.stdout
    assert CHAT in cashcode("sessions", "list", env=env, cwd=home / "ws").stdout

    again = cashcode("import", str(source), "--yes", env=env, cwd=home / "ws")
    assert again.returncode == 0
    assert "[already imported] chat: hi" in again.stdout and "0 to import" in again.stdout


def test_a_folder_of_unknown_shape_is_one_clear_error_line(home: Path) -> None:
    result = cashcode("import", str(home / "ws"), env=base_env(home), cwd=home / "ws")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "cdy-agent workspace" in result.stderr
    assert "Traceback" not in result.stderr
