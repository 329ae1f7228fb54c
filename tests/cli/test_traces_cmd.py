"""`cashcode traces` after real `ask` and `chat` runs; the price pair rule on the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import cashcode


def test_ask_and_each_chat_turn_leave_one_trace_each(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    env.update(CASHCODE_INPUT_COST_PER_MILLION="1", CASHCODE_OUTPUT_COST_PER_MILLION="2")
    fake_llm.script(
        {"text": "one", "usage": {"input": 100, "output": 10}},
        {"text": "two", "usage": {"input": 200, "output": 20}},
        {"text": "three", "usage": {"input": 300, "output": 30}},
    )
    assert cashcode("ask", "first question", env=env, cwd=home / "ws").returncode == 0
    chat = cashcode("chat", env=env, cwd=home / "ws", stdin="second\n\n/exit\n")
    assert chat.returncode == 0, chat.stderr
    chat2 = cashcode("chat", env=env, cwd=home / "ws", stdin="third\n")
    assert chat2.returncode == 0, chat2.stderr

    listed = cashcode("traces", "list", "--json", env=env, cwd=home / "ws")
    assert listed.returncode == 0, listed.stderr
    traces = json.loads(listed.stdout)
    assert len(traces) == 3  # the empty line and /exit make none
    assert sorted(t["input_tokens"] for t in traces) == [100, 200, 300]
    assert {t["api_mode"] for t in traces} == {"chat_completions"}
    newest = traces[0]
    assert newest["cost"] == (300 * 1 + 30 * 2) / 1_000_000

    text = cashcode("traces", "list", "--limit", "1", env=env, cwd=home / "ws")
    assert text.returncode == 0 and len(text.stdout.splitlines()) == 1 and newest["id"] in text.stdout
    shown = cashcode("traces", "show", newest["id"], env=env, cwd=home / "ws")
    assert shown.returncode == 0 and "model calls:" in shown.stdout and "fake-model" in shown.stdout
    shown_json = json.loads(
        cashcode("traces", "show", newest["id"], "--json", env=env, cwd=home / "ws").stdout
    )
    assert shown_json == newest
    for secret_text in ("first question", "second", "third", "one", "two", "three"):
        assert f'"{secret_text}"' not in listed.stdout

    missing = cashcode("traces", "show", "f" * 32, env=env, cwd=home / "ws")
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_a_half_set_price_pair_is_a_clear_error_before_any_request(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    env["CASHCODE_OUTPUT_COST_PER_MILLION"] = "2"
    result = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert result.returncode == 1
    assert "CASHCODE_INPUT_COST_PER_MILLION is not" in result.stderr
    assert fake_llm.model_requests() == []


def test_without_prices_the_cost_is_shown_as_unknown(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": "no usage"})
    assert cashcode("ask", "q", env=env, cwd=home / "ws").returncode == 0
    text = cashcode("traces", "list", env=env, cwd=home / "ws").stdout
    assert "cost unknown" in text
