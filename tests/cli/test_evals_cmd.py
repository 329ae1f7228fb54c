"""`cashcode evals run` against the scripted LLM: each assertion kind passing and failing,
cdy-agent's documented format unchanged, JSON output, malformed files exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import cashcode

EVERY_KIND = """\
cases:
  - name: exact passes
    prompt: "Reply with exactly: EVAL_OK"
    expect:
      exact: EVAL_OK
  - name: exact fails
    prompt: "Reply with exactly: EVAL_OK"
    expect: {exact: EVAL_OK}
  - name: contains passes
    prompt: "Name two terms."
    expect:
      contains: [Agent Loop, tool calling]
  - name: contains fails
    prompt: "Name one term."
    expect:
      contains: Agent Loop
  - name: regex passes
    prompt: "Give a number."
    expect:
      regex: "^ans-[0-9]+$"
  - name: regex fails
    prompt: "Give a number."
    expect:
      regex: "^ans-[0-9]+$"
  - name: tools passes
    prompt: "Read the file."
    expect:
      tools_called: [read_file]
  - name: tools fails
    prompt: "Write the file."
    expect:
      tools_called: [write_file, read_file]
"""


def _script_every_kind(fake_llm: Any) -> None:
    fake_llm.script(
        {"text": "EVAL_OK"},
        {"text": "not it"},
        {"text": "The Agent Loop drives tool calling."},
        {"text": "nothing relevant"},
        {"text": "ans-42"},
        {"text": "ans-x"},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "missing.txt"}}]},
        {"text": "read it"},
        {"text": "wrote nothing"},
    )


def test_each_assertion_kind_passes_and_fails_with_reasons_and_exit_1(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    (home / "cases.yaml").write_text(EVERY_KIND)
    _script_every_kind(fake_llm)
    result = cashcode("evals", "run", str(home / "cases.yaml"), env=env, cwd=home / "ws")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split("  ", 1)[0] for line in lines[:8]] == ["PASS", "FAIL"] * 4
    assert lines[0] == "PASS  exact passes"
    assert "exact: expected 'EVAL_OK', got 'not it'" in lines[1]
    assert "contains: missing 'Agent Loop'" in lines[3]
    assert "regex: no match for /^ans-[0-9]+$/" in lines[5]
    assert "tools_called: not called write_file, read_file (called: none)" in lines[7]
    assert lines[8] == "4/8 passed, 4 failed"
    # Each case ran in its own chat, removed afterwards.
    sessions = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert "exact" not in sessions.stdout


def test_cdy_agent_documented_format_runs_unchanged_and_json_output(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    (home / "smoke.yaml").write_text(
        "cases:\n"
        "  - name: exact reply\n"
        '    prompt: "Reply with exactly: CDY_EVAL_OK"\n'
        "    expect:\n"
        "      exact: CDY_EVAL_OK\n"
        "  - name: required concepts\n"
        '    prompt: "Include the literal terms Agent Loop and tool calling in one sentence."\n'
        "    expect:\n"
        "      contains:\n"
        "        - Agent Loop\n"
        "        - tool calling\n"
    )
    fake_llm.script({"text": "CDY_EVAL_OK"}, {"text": "An Agent Loop does tool calling."})
    result = cashcode(
        "evals", "run", str(home / "smoke.yaml"), "--model", "fake-tools", env=env, cwd=home / "ws"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "2/2 passed, 0 failed"
    assert {r.body["model"] for r in fake_llm.model_requests()} == {"fake-tools"}

    (home / "one.json").write_text(json.dumps([{"name": "j", "prompt": "p", "expect": {"exact": "x"}}]))
    fake_llm.script({"text": "y"})
    as_json = cashcode("evals", "run", str(home / "one.json"), "--json", env=env, cwd=home / "ws")
    assert as_json.returncode == 1
    report = json.loads(as_json.stdout)
    assert (report["total"], report["passed"], report["failed"]) == (1, 0, 1)
    assert report["cases"][0]["name"] == "j" and report["cases"][0]["reasons"]


def test_a_malformed_file_exits_2_naming_the_line_and_field(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    (home / "bad.yaml").write_text("cases:\n  - name: a\n    expect:\n      exact: x\n")
    result = cashcode("evals", "run", str(home / "bad.yaml"), env=env, cwd=home / "ws")
    assert result.returncode == 2
    assert "bad.yaml:2: cases[0].prompt: missing" in result.stderr
    assert fake_llm.model_requests() == []
    missing = cashcode("evals", "run", str(home / "nope.yaml"), env=env, cwd=home / "ws")
    assert missing.returncode == 2 and "cannot read the file" in missing.stderr


def test_a_call_refused_for_want_of_an_approver_says_no_one_was_asked_and_is_not_called(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    # Issue 40 item 17: the model was told "The user denied this tool call" (nobody was asked)
    # and `tools_called: [write_file]` passed although write_file never ran.
    (home / "write.yaml").write_text(
        "cases:\n  - name: writes\n    prompt: Write x.txt\n    expect:\n      tools_called: [write_file]\n"
    )
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
        {"text": "Could not write."},
    )
    result = cashcode("evals", "run", str(home / "write.yaml"), "--json", env=env, cwd=home / "ws")
    assert result.returncode == 1, result.stderr
    case = json.loads(result.stdout)["cases"][0]
    assert case["tools_called"] == []
    assert "tools_called: not called write_file (called: none)" in case["reasons"]
    told = [m for m in fake_llm.model_requests()[1].body["messages"] if m["role"] == "tool"][-1]["content"]
    assert "no one was asked" in told and "The user denied" not in told
    assert not (home / "ws" / "x.txt").exists()
