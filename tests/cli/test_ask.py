"""`cashcode ask` in a subprocess against the fake server (SPEC S1.4, S2.6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import VALID_KEY, cashcode, closed_port


def test_ask_prints_the_streamed_answer_and_exits_0(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": "The answer is 42.", "chunk_size": 3})
    result = cashcode("ask", "What", "is", "it?", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer is 42.\n"
    request = fake_llm.model_requests()[0].body
    assert request["stream"] is True and request["messages"][-1]["content"] == "What is it?"


@pytest.mark.parametrize("mode", ["chat_completions", "responses"])
def test_ask_without_streaming_prints_the_whole_answer(
    env: dict[str, str], home: Path, fake_llm: Any, mode: str
) -> None:
    fake_llm.script({"text": "All at once."})
    result = cashcode("ask", "--no-stream", "--api-mode", mode, "hi", env=env, cwd=home / "ws")
    assert (result.returncode, result.stdout) == (0, "All at once.\n"), result.stderr
    assert fake_llm.model_requests()[0].body.get("stream") in (False, None)


def test_ask_can_use_the_responses_api(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": "Via responses."})
    result = cashcode("ask", "--api-mode", "responses", "hi", env=env, cwd=home / "ws")
    assert (result.returncode, result.stdout) == (0, "Via responses.\n"), result.stderr
    assert fake_llm.model_requests()[0].path == "/v1/responses"


@pytest.mark.parametrize("problem", ["no_key", "wrong_key", "unreachable"])
def test_ask_fails_with_exactly_one_actionable_line(env: dict[str, str], home: Path, problem: str) -> None:
    if problem == "no_key":
        env.pop("OPENAI_API_KEY")
    elif problem == "wrong_key":
        env["OPENAI_API_KEY"] = "sk-wrong-000000000000"
    else:
        env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{closed_port()}/v1"
    result = cashcode("ask", "hello", env=env, cwd=home / "ws")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cashcode: error: ") and "Traceback" not in result.stderr
    expected = {"no_key": "OPENAI_API_KEY", "wrong_key": "rejected the API key", "unreachable": "reach"}[
        problem
    ]
    assert expected in lines[0]
    assert "sk-wrong-000000000000" not in result.stderr and VALID_KEY not in result.stderr
    assert result.stdout == ""


def test_without_a_terminal_approvals_are_denied_without_asking(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
        {"text": "I could not write it."},
    )
    result = cashcode("ask", "write x", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert "Denied write_file" in result.stderr and "x.txt" in result.stderr
    assert not (home / "ws" / "x.txt").exists()
    assert result.stdout.endswith("I could not write it.\n")


def test_read_only_tools_run_in_ask_and_the_answer_follows(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    (home / "ws" / "data.txt").write_text("secret sauce")
    fake_llm.script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "data.txt"}}]},
        {"text": "It says secret sauce."},
    )
    result = cashcode("ask", "read it", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert "read_file" in result.stderr and result.stdout == "It says secret sauce.\n"
    assert "secret sauce" in str(fake_llm.model_requests()[1].body["messages"])


def test_config_show_prints_sources_but_never_the_key(env: dict[str, str], home: Path) -> None:
    result = cashcode("config", "show", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert VALID_KEY not in result.stdout and VALID_KEY not in result.stderr
    assert "api_key: set (env OPENAI_API_KEY)" in result.stdout
    assert "model: fake-model  (env CASHCODE_MODEL)" in result.stdout


def test_a_bad_flag_value_is_one_line_too(env: dict[str, str], home: Path) -> None:
    result = cashcode("ask", "--workspace", str(home / "missing"), "hi", env=env, cwd=home / "ws")
    assert result.returncode == 1 and len(result.stderr.splitlines()) == 1
    assert "workspace" in result.stderr


def test_desktop_and_serve_explain_when_they_are_missing_or_run(env: dict[str, str], home: Path) -> None:
    for command in ("desktop", "serve"):
        result = cashcode(command, "--help", env=env, cwd=home / "ws")
        assert result.returncode == 0 and command in result.stdout


def test_a_turn_whose_tools_all_failed_says_so_and_its_trace_is_done_with_errors(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    # Issue 40 item 2: the model answered (exit 0), but both of its tool calls failed.
    fake_llm.script(
        {
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "missing-1.txt"}},
                {"name": "read_file", "arguments": {"path": "missing-2.txt"}},
            ]
        },
        {"text": "I found nothing."},
    )
    result = cashcode("ask", "read them", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I found nothing.\n"
    assert "cashcode: note: 2 of 2 tool calls failed" in result.stderr
    traces = cashcode("traces", "list", "--json", env=env, cwd=home / "ws")
    assert [t["status"] for t in json.loads(traces.stdout)] == ["done_with_errors"]
    # A denied call is not a failure: the turn of the test above stays "done", no note.
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
        {"text": "Not written."},
    )
    denied = cashcode("ask", "write x", env=env, cwd=home / "ws")
    assert denied.returncode == 0 and "tool calls failed" not in denied.stderr
    traces = cashcode("traces", "list", "--json", env=env, cwd=home / "ws")
    assert [t["status"] for t in json.loads(traces.stdout)] == ["done", "done_with_errors"]
