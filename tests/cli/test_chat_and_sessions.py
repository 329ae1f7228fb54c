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


def _export(chat_id: str, title: str, at: str, texts: list[str]) -> str:
    roles = ["user", "assistant"]
    messages = [
        {"cursor": i + 1, "turn_id": "t1", "role": roles[i % 2], "content": text, "created_at": at}
        for i, text in enumerate(texts)
    ]
    chat = {"id": chat_id, "title": title, "created_at": at, "updated_at": at}
    return json.dumps({"format": "cashcode.chat", "version": 1, "chat": chat, "messages": messages})


def test_imported_times_sort_by_time_and_the_list_previews_the_last_message(
    env: dict[str, str], home: Path
) -> None:
    # Issue 40 item 4: `…00Z` sorted above the newer `…00.900000Z` as text.
    older, newer = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
    long_answer = "A long answer " + "word " * 40
    files = {
        "older.json": _export(older, "Older chat", "2026-03-01T10:00:00Z", ["q1", "short answer"]),
        "newer.json": _export(newer, "Newer chat", "2026-03-01T10:00:00.900000Z", ["q2", long_answer]),
        "zone.json": _export(
            "33333333-3333-4333-8333-333333333333", "Zoned chat", "2026-03-01T11:00:00.5+02:00", ["q3"]
        ),
    }
    for name, content in files.items():
        (home / name).write_text(content)
        imported = cashcode("sessions", "import", str(home / name), env=env, cwd=home / "ws")
        assert imported.returncode == 0, imported.stderr
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    # 11:00:00.5+02:00 is 09:00:00.5 UTC: the oldest of the three.
    assert [line.split("  ")[2] for line in lines] == ["Newer chat", "Older chat", "Zoned chat"]
    assert lines[1].endswith("  — short answer")
    preview = lines[0].split("  — ", 1)[1]
    assert 70 < len(preview) <= 80 and preview.startswith("A long answer word") and preview.endswith("…")
    records = {c.id: c for c in _chats(home).list()}
    assert records[older].updated_at == "2026-03-01T10:00:00.000000Z"
    bad = _export("44444444-4444-4444-8444-444444444444", "Bad", "last tuesday", ["q"])
    (home / "bad.json").write_text(bad)
    refused = cashcode("sessions", "import", str(home / "bad.json"), env=env, cwd=home / "ws")
    assert refused.returncode == 1 and "created_at" in refused.stderr
    assert len(_chats(home).list()) == 3
