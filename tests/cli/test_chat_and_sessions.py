"""`cashcode chat` (REPL, resume) and `cashcode sessions` in subprocesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.api.plugins import open_database
from app.store.chats import ChatRepository
from tests.cli.conftest import cashcode


def _chats(home: Path) -> ChatRepository:
    return ChatRepository(open_database(home / "data" / "cashcode.sqlite3"))


def test_chat_stores_each_turn_and_resume_continues_with_the_history(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": "First answer."}, {"text": "Second answer."}, {"text": "Third answer."})
    first = cashcode("chat", env=env, cwd=home / "ws", stdin="first question\nsecond question\n/exit\n")
    assert first.returncode == 0, first.stderr
    assert "First answer." in first.stdout and "Second answer." in first.stdout
    [chat] = _chats(home).list()
    assert chat.title == "first question"
    resumed = cashcode("chat", "--resume", chat.id, env=env, cwd=home / "ws", stdin="third question\n")
    assert resumed.returncode == 0, resumed.stderr
    assert "Resumed chat" in resumed.stderr and "Third answer." in resumed.stdout
    sent = [m["content"] for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] != "system"]
    assert sent == ["first question", "First answer.", "second question", "Second answer.", "third question"]
    assert len(_chats(home).history(chat.id)) == 6


def test_resuming_an_unknown_or_malformed_chat_fails_plainly(env: dict[str, str], home: Path) -> None:
    for bad in ("00000000-0000-4000-8000-000000000000", "../etc"):
        result = cashcode("chat", "--resume", bad, env=env, cwd=home / "ws", stdin="")
        assert result.returncode == 1 and result.stderr.startswith("cashcode: error:")
        assert len(result.stderr.splitlines()) == 1


def test_sessions_list_show_and_delete(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": "Stored answer."})
    assert cashcode("ask", "remember this", env=env, cwd=home / "ws").returncode == 0
    [chat] = _chats(home).list()
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert chat.id in listed.stdout and "remember this" in listed.stdout
    shown = cashcode("sessions", "show", chat.id, env=env, cwd=home / "ws")
    assert "user: remember this" in shown.stdout and "assistant: Stored answer." in shown.stdout
    refused = cashcode("sessions", "delete", chat.id, env=env, cwd=home / "ws")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    deleted = cashcode("sessions", "delete", chat.id, "--yes", env=env, cwd=home / "ws")
    assert deleted.returncode == 0, deleted.stderr
    assert _chats(home).list() == []
    missing = cashcode("sessions", "show", chat.id, env=env, cwd=home / "ws")
    assert missing.returncode == 1 and "not found" in missing.stderr


def test_a_failed_ask_leaves_no_empty_session(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script(*[{"error": 400, "error_message": "bad"}] * 2)
    result = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert result.returncode == 1
    assert json.loads(json.dumps([c.id for c in _chats(home).list()])) == []
