"""`cashcode tasks …` in real subprocesses against the scripted LLM (exact syntax of issue 29)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.sandbox.probe import landlock_abi
from tests.cli.conftest import cashcode, env, fake_llm, home

__all__ = ["env", "fake_llm", "home"]


def test_add_list_run_history_enable_disable_remove(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    ws = home / "ws"
    added = cashcode("tasks", "add", "brief", "--prompt", "Morning summary", "--daily", "07:30",
                     "--model", "fake-model", env=env, cwd=ws)  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "daily 07:30" in added.stdout
    listed = json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)
    default = "sandboxed" if landlock_abi({})[0] >= 1 else "read_only"  # new tasks: issue 36
    assert [(t["name"], t["last_status"], t["approval_mode"]) for t in listed] == [("brief", None, default)]
    assert listed[0]["next_run"] is not None

    fake_llm.script({"text": "Good morning: nothing new."})
    ran = cashcode("tasks", "run", "brief", env=env, cwd=ws)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "Good morning: nothing new."
    assert fake_llm.model_requests()[0].body["messages"][-1]["content"] == "Morning summary"

    history = json.loads(cashcode("tasks", "history", "brief", "--json", env=env, cwd=ws).stdout)
    assert [(r["status"], r["trigger"]) for r in history] == [("ok", "manual")]
    assert history[0]["chat_id"] and history[0]["trace_id"] and history[0]["duration_ms"] is not None
    shown = cashcode("sessions", "show", history[0]["chat_id"], env=env, cwd=ws)
    assert "Good morning: nothing new." in shown.stdout
    assert json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)[0]["last_status"] == "ok"

    assert cashcode("tasks", "disable", "brief", env=env, cwd=ws).returncode == 0
    off = json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)[0]
    assert off["enabled"] is False and off["next_run"] is None
    assert cashcode("tasks", "enable", "brief", env=env, cwd=ws).returncode == 0
    assert json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)[0]["next_run"] is not None
    assert cashcode("tasks", "remove", "brief", env=env, cwd=ws).returncode == 0
    assert json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout) == []


def test_every_schedule_flag_and_bad_input_changes_nothing(env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    for flags in (["--every", "2h"], ["--weekly", "mon@09:00"], ["--cron", "0 9 * * 1-5"],
                  ["--at", "2099-01-31T09:00"]):  # fmt: skip
        done = cashcode("tasks", "add", f"t{flags[0]}", "--prompt", "p", *flags, env=env, cwd=ws)
        assert done.returncode == 0, done.stderr
    texts = {
        t["name"]: t["schedule_text"]
        for t in json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)
    }
    assert texts["t--every"] == "every 2h" and texts["t--weekly"] == "weekly mon@09:00"
    assert texts["t--cron"] == "cron 0 9 * * 1-5" and texts["t--at"].startswith("at 2099-01-31")
    for flags, message in (
        (["--every", "30s"], "at least 1m"),
        (["--daily", "25:00"], "not a time of day"),
        (["--weekly", "funday@09:00"], "DAY@HH:MM"),
        (["--cron", "nope"], "cron expression"),
        (["--at", "tomorrow"], "not an ISO time"),
        (["--every", "1h", "--provider", "ghost"], "no saved provider 'ghost'"),
        (["--every", "1h", "--workspace", str(home / "missing")], "not an existing folder"),
    ):
        bad = cashcode("tasks", "add", "bad", "--prompt", "p", *flags, env=env, cwd=ws)
        assert bad.returncode == 1 and message in bad.stderr, (flags, bad.stderr)
    both = cashcode(
        "tasks", "add", "bad", "--prompt", "p", "--every", "1h", "--daily", "07:00", env=env, cwd=ws
    )
    assert both.returncode == 2 and "not allowed with" in both.stderr
    names = [t["name"] for t in json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)]
    assert "bad" not in names and len(names) == 4
    auto = cashcode("tasks", "add", "auto", "--prompt", "p", "--every", "1h", "--approval-mode", "autonomous",
                    env=env, cwd=ws)  # fmt: skip
    assert auto.returncode == 0 and "warning: Autonomous" in auto.stderr
    missing = cashcode("tasks", "run", "nobody", env=env, cwd=ws)
    assert missing.returncode == 1 and "no task named 'nobody'" in missing.stderr


def test_a_read_only_task_run_says_write_file_was_refused(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    ws = home / "ws"
    cashcode("tasks", "add", "writer", "--prompt", "write it", "--every", "1h",
             "--approval-mode", "read_only", env=env, cwd=ws)  # fmt: skip
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "1"}}]},
        {"text": "Not allowed to write."},
    )
    ran = cashcode("tasks", "run", "writer", env=env, cwd=ws)
    assert ran.returncode == 0, ran.stderr
    assert "Not allowed to write." in ran.stdout
    assert "refused by the task's approval mode: write_file" in ran.stderr
    assert not (ws / "x.txt").exists()
    history = json.loads(cashcode("tasks", "history", "writer", "--json", env=env, cwd=ws).stdout)
    assert history[0]["refused_tools"] == ["write_file"]


def test_a_foreground_run_that_needs_an_approval_tells_the_model_no_one_was_asked(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    # Issue 40 item 17: nobody can answer `tasks run` in the terminal's foreground, so the model
    # is told no one was asked, never "the user denied" (nobody did).
    ws = home / "ws"
    cashcode("tasks", "add", "asker", "--prompt", "write it", "--every", "1h",
             "--approval-mode", "ask_writes", env=env, cwd=ws)
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "1"}}]},
        {"text": "Could not write."},
    )
    ran = cashcode("tasks", "run", "asker", env=env, cwd=ws)
    assert ran.returncode == 0, ran.stderr
    told = [m for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "tool"][-1]["content"]
    assert "no one was asked" in told and "denied" not in told.lower()
    assert not (ws / "x.txt").exists()


def test_wait_for_answers_is_set_by_add_and_edit_and_bad_values_change_nothing(
    env: dict[str, str], home: Path
) -> None:
    ws = home / "ws"
    added = cashcode("tasks", "add", "night", "--prompt", "Tidy", "--every", "1h",
                     "--approval-mode", "ask_writes", "--wait-for-answers", "0", env=env, cwd=ws)  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)
    assert [t["wait_for_answers_s"] for t in listed] == [0]
    edited = cashcode("tasks", "edit", "night", "--wait-for-answers", "3600", env=env, cwd=ws)
    assert edited.returncode == 0, edited.stderr
    assert "3600 s" in edited.stdout
    task = json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)[0]
    assert (task["wait_for_answers_s"], task["approval_mode"], task["prompt"]) == (3600, "ask_writes", "Tidy")
    for bad in ("-1", "soon", str(31 * 86_400)):
        refused = cashcode("tasks", "edit", "night", "--wait-for-answers", bad, env=env, cwd=ws)
        assert refused.returncode == 2 and "--wait-for-answers" in refused.stderr, bad
    unknown = cashcode("tasks", "edit", "nope", "--wait-for-answers", "60", env=env, cwd=ws)
    assert unknown.returncode == 1 and "no task named 'nope'" in unknown.stderr
    after = json.loads(cashcode("tasks", "list", "--json", env=env, cwd=ws).stdout)
    assert after[0]["wait_for_answers_s"] == 3600
