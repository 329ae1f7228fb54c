"""Small terminal items of issue 41: providers are named by their name (not their id) in banners
and errors; a cron error names its field; `⊘ denied` and one-line results under tool calls;
`/new`, `/model`, `/clear` in `chat`; a header over `mcp list`; a stopped answer marked in
`sessions show`. Real subprocesses, pty where a prompt is answered."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from app.settings.user_settings import ProviderProfile, SettingsStore, UserSettings
from tests.cli.conftest import VALID_KEY, base_env, cashcode

PROVIDER_ID = "3f2a9c1e-5b7d-4e8f-a1b2-c3d4e5f60718"


def _saved_provider(home: Path, base_url: str) -> None:
    store = SettingsStore(home / "config" / "settings.json")
    profile = ProviderProfile(id=PROVIDER_ID, name="Work LLM", kind="chat_completions", base_url=base_url)
    store.save(UserSettings(providers=[profile]))


def test_errors_and_the_chat_banner_name_the_provider_not_its_id(home: Path, fake_llm: Any) -> None:
    _saved_provider(home, fake_llm.openai_base_url)
    env = base_env(home)
    env["OPENAI_API_KEY"] = "sk-not-the-valid-key-0000"
    refused = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert refused.returncode == 1
    assert "Provider Work LLM rejected the API key" in refused.stderr, refused.stderr
    assert PROVIDER_ID not in refused.stderr

    env["OPENAI_API_KEY"] = VALID_KEY
    fake_llm.script({"text": "hello"})
    chat = cashcode("chat", env=env, cwd=home / "ws", stdin="hi\n")
    assert chat.returncode == 0, chat.stderr
    banner = chat.stderr.splitlines()[0]
    assert "· Work LLM · model fake-model" in banner and PROVIDER_ID not in chat.stderr, chat.stderr
    shown = cashcode("config", "show", env=env, cwd=home / "ws")
    assert f"provider: Work LLM (id {PROVIDER_ID})" in shown.stdout, shown.stdout + shown.stderr


def test_a_cron_error_says_which_field_is_out_of_range(env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    for cron, field, value, allowed in (
        ("0 25 * * *", "hour", "25", "0–23"),
        ("61 9 * * *", "minute", "61", "0–59"),
        ("0 9 1-32 * *", "day of month", "32", "1–31"),
        ("0 9 * 13 *", "month", "13", "1–12"),
        ("0 9 * * 1,8", "day of week", "8", "0–7"),
    ):
        bad = cashcode("tasks", "add", "bad", "--prompt", "p", "--cron", cron, env=env, cwd=ws)
        assert bad.returncode == 1, bad.stdout
        expected = f"the {field} field of the cron expression is {value}, out of range: it takes {allowed}"
        assert expected in bad.stderr, (cron, bad.stderr)
    assert "bad" not in cashcode("tasks", "list", env=env, cwd=ws).stdout  # nothing was added


def test_a_denied_call_prints_a_short_denied_line_and_an_allowed_write_its_result(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    from tests.cli.test_terminal_approvals import _ask_in_a_terminal

    write = {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "hello"}}]}
    fake_llm.script(write, {"text": "Finished."})
    code, _, err = _ask_in_a_terminal(env, home / "ws", "n")
    assert code == 0, err
    after = err.split("Allow? ", 1)[1]
    assert "⊘ denied" in after and "The user denied this tool call" not in after, after

    fake_llm.script(write, {"text": "Finished."})
    code, _, err = _ask_in_a_terminal(env, home / "ws", "y")
    assert code == 0, err
    result = [line for line in err.split("Allow? ", 1)[1].splitlines() if "↳" in line]
    assert len(result) == 1 and "out.txt" in result[0], err  # one line saying what was written


def test_help_lists_new_model_and_clear_and_they_work(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    from tests.cli.test_chat_line_editing import READY
    from tests.cli.test_chat_repl import _plain, _start_chat

    fake_llm.script({"text": "FIRST-ANSWER"}, {"text": "SECOND-ANSWER"})
    with _start_chat(env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"/help\r")
        at = term.wait_for(READY, term.wait_for(b"/exit, /quit", at))
        listed = _plain(term.output)
        assert "/new" in listed and "/model [NAME]" in listed and "/clear" in listed
        term.type(b"/model\r")
        at = term.wait_for(READY, term.wait_for(b"Model fake-model", at))
        term.type(b"/model fake-tools\r")
        at = term.wait_for(READY, term.wait_for(b"use model fake-tools", at))
        term.type(b"first question\r")
        at = term.wait_for(READY, term.wait_for(b"FIRST-ANSWER", at))
        term.type(b"/clear\r")
        at = term.wait_for(READY, term.wait_for(b"\x1b[H\x1b[2J", at))
        term.type(b"/new\r")
        at = term.wait_for(READY, term.wait_for(b"New chat", term.wait_for(b"--resume", at)))
        term.type(b"second question\r")
        at = term.wait_for(READY, term.wait_for(b"SECOND-ANSWER", at))
        term.type(b"/exit\r")
        assert proc.wait(timeout=30) == 0
    first, second = (r.body for r in fake_llm.model_requests())
    assert first["model"] == "fake-tools" and second["model"] == "fake-tools"
    assert "first question" not in str(second["messages"])  # /new started another chat
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == ["second question"]


def test_sessions_show_marks_a_stopped_answer(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    import re
    import signal

    from tests.cli.test_chat_line_editing import READY
    from tests.cli.test_chat_repl import SLOW, _plain, _start_chat

    fake_llm.script(SLOW, {"text": "A WHOLE ANSWER"})
    with _start_chat(env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"talk slowly\r")
        at = term.wait_for(b"tick", at)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C during the answer: Stop
        at = term.wait_for(READY, term.wait_for(b"Stopped.", at))
        term.type(b"and now?\r")
        at = term.wait_for(READY, term.wait_for(b"A WHOLE ANSWER", at))
        term.type(b"/exit\r")
        assert proc.wait(timeout=30) == 0
    found = re.search(r"--resume (\S+)", _plain(term.output))
    assert found is not None
    shown = cashcode("sessions", "show", found.group(1), env=env, cwd=home / "ws")
    assert shown.returncode == 0, shown.stderr
    marks = [i for i, line in enumerate(shown.stdout.splitlines()) if "[stopped:" in line]
    assert len(marks) == 1, shown.stdout  # the stopped answer, not the whole one
    before = shown.stdout.splitlines()[: marks[0]]
    assert any(line.startswith("assistant: SLOW") for line in before), shown.stdout
    assert "A WHOLE ANSWER" not in "\n".join(before)


def test_mcp_list_has_a_header_row_over_aligned_columns(home: Path) -> None:
    listed = cashcode("mcp", "list", env=base_env(home), cwd=home)
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["NAME", "TRANSPORT", "SOURCE", "STATUS", "COMMAND", "OR", "URL"], header
    stdio = next(row for row in rows if row.startswith("test_stdio_mcp "))
    column = header.index("TRANSPORT")
    assert stdio[column:].startswith("stdio") and stdio[column - 2 : column] == "  ", (header, stdio)
