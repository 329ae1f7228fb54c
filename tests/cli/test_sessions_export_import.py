"""`cashcode sessions export|import`, and reading commands on an empty data folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import base_env, cashcode


def _files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*")) if root.exists() else []


def test_sessions_list_on_an_empty_data_folder_creates_nothing(home: Path) -> None:
    env = base_env(home)
    before = _files_under(home)
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert listed.returncode == 0 and listed.stdout.strip() == "No chats yet."
    shown = cashcode("sessions", "export", "00000000-0000-4000-8000-000000000000", env=env, cwd=home / "ws")
    assert shown.returncode == 1 and "not found" in shown.stderr
    assert _files_under(home) == before
    assert not (home / "data").exists() and not (home / "config").exists()


def test_export_md_and_json_then_import_round_trips(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": "Stored answer, 你好."})
    assert cashcode("ask", "remember this", env=env, cwd=home / "ws").returncode == 0
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws").stdout
    chat_id = listed.split()[0]

    md = cashcode("sessions", "export", chat_id, "--format", "md", env=env, cwd=home / "ws")
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# remember this") and "Stored answer, 你好." in md.stdout

    out = home / "chat.json"
    written = cashcode(
        "sessions", "export", chat_id, "--format", "json", "--output", str(out), env=env, cwd=home / "ws"
    )
    assert written.returncode == 0 and str(out) in written.stdout
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["format"] == "cashcode.chat" and [m["role"] for m in doc["messages"]] == ["user", "assistant"]

    assert cashcode("sessions", "delete", chat_id, "--yes", env=env, cwd=home / "ws").returncode == 0
    imported = cashcode("sessions", "import", str(out), env=env, cwd=home / "ws")
    assert imported.returncode == 0, imported.stderr
    assert f"Imported chat {chat_id}" in imported.stdout and "(2 messages)" in imported.stdout
    again = cashcode("sessions", "export", chat_id, "--format", "json", env=env, cwd=home / "ws")
    assert json.loads(again.stdout)["messages"] == doc["messages"]

    bad = home / "bad.json"
    bad.write_text('{"format": "cashcode.chat", "version": 1}', encoding="utf-8")
    refused = cashcode("sessions", "import", str(bad), env=env, cwd=home / "ws")
    assert refused.returncode == 1 and "Cannot import this chat" in refused.stderr
    missing = cashcode("sessions", "import", str(home / "nope.json"), env=env, cwd=home / "ws")
    assert missing.returncode == 1 and "cannot read" in missing.stderr
