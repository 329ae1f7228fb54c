"""Local models for real (issue 34) through the terminal: `ask` and `chat` complete a tool round
trip against the fake LLM in llama.cpp mode, a provider is saved from the terminal with its limits
(which reach the request), `models` says when a list is empty or unreadable, and an Ollama
provider without a model uses its first installed one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import base_env, cashcode

READ_THEN_ANSWER = (
    {"tool_calls": [{"name": "read_file", "arguments": {"path": "data.txt"}}]},
    {"text": "It says secret sauce."},
)


def _llama_cpp(fake_llm: Any, home: Path) -> None:
    fake_llm.set_quirks("llama_cpp")
    (home / "ws" / "data.txt").write_text("secret sauce")
    fake_llm.script(*READ_THEN_ANSWER)


def _round_trip_done(fake_llm: Any) -> None:
    requests = fake_llm.model_requests()
    # Offered with tool_choice auto; the refused forms were each sent once.
    assert all(r.body.get("tool_choice") == "auto" for r in requests)
    # 1: streamed with tools, closed empty (200, no event); 2: whole; 3: null content refused;
    # 4: "" accepted.
    assert [(r.status, bool(r.body.get("stream"))) for r in requests] == [
        (200, True),
        (200, False),
        (500, False),
        (200, False),
    ]
    assert "secret sauce" in str(requests[-1].body["messages"])
    assert requests[-1].body["messages"][-2]["content"] == ""  # the tool-call message, as llama.cpp takes it


def test_ask_completes_a_read_file_round_trip_against_llama_cpp(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    _llama_cpp(fake_llm, home)
    result = cashcode("ask", "read data.txt", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It says secret sauce.\n" and "read_file" in result.stderr
    _round_trip_done(fake_llm)


def test_chat_completes_a_read_file_round_trip_against_llama_cpp(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    _llama_cpp(fake_llm, home)
    result = cashcode("chat", env=env, cwd=home / "ws", stdin="read data.txt\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "It says secret sauce." in result.stdout
    _round_trip_done(fake_llm)


def test_an_sse_stream_served_as_text_plain_is_answered(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.set_quirks("sse_text_plain")
    fake_llm.script({"text": "Plain type, real stream."})
    result = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Plain type, real stream.\n"


def test_a_deterministic_500_is_sent_twice_and_its_message_shown(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(*[{"error": 500, "error_message": "llama_decode returned -3"}] * 4)
    result = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert result.returncode != 0
    assert "llama_decode returned -3" in result.stderr
    assert len(fake_llm.model_requests()) == 2


@pytest.mark.parametrize(
    ("quirk", "said"),
    [("models_empty", "lists no models"), ("models_null", "`data` is null"), ("models_html", "HTML page")],
)
def test_models_says_when_the_list_is_empty_or_unreadable(
    quirk: str, said: str, env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.set_quirks(quirk)
    result = cashcode("models", env=env, cwd=home / "ws")
    assert result.returncode == 1
    assert said in result.stderr and result.stdout == ""


def _keyless_env(home: Path) -> dict[str, str]:
    env = base_env(home)
    env.pop("CASHCODE_MODEL")
    return env


def test_a_provider_saved_from_the_terminal_sends_its_limits(home: Path, fake_llm: Any) -> None:
    from tests.cli.conftest import VALID_KEY

    env = _keyless_env(home)
    added = cashcode(
        "config", "provider", "add", "--name", "Llama", "--kind", "chat_completions",
        "--base-url", fake_llm.openai_base_url, "--model", "fake-model", "--timeout", "42",
        env=env, cwd=home / "ws", stdin=VALID_KEY + "\n",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert VALID_KEY not in added.stdout + added.stderr and "key stored" in added.stdout
    changed = cashcode(
        "config", "provider", "set", "Llama", "--temperature", "0.3", "--max-tokens", "50",
        "--first-token-timeout", "30", env=env, cwd=home / "ws",
    )  # fmt: skip
    assert changed.returncode == 0, changed.stderr
    vision = cashcode(
        "config", "provider", "set", "Llama", "--model", "fake-tools", "--vision", env=env, cwd=home / "ws"
    )
    assert vision.returncode == 0, vision.stderr
    listed = cashcode("config", "provider", "list", env=env, cwd=home / "ws")
    assert "timeout: 42 s" in listed.stdout and "temperature=0.3" in listed.stdout
    assert "can see images: fake-tools" in listed.stdout
    result = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    [request] = fake_llm.model_requests()
    assert request.key_valid and request.body["model"] == "fake-model"
    assert (request.body["temperature"], request.body["max_tokens"]) == (0.3, 50)
    assert request.headers["x-stainless-read-timeout"] == "42.0"


def test_a_bad_number_changes_nothing(home: Path, fake_llm: Any) -> None:
    env = _keyless_env(home)
    cashcode(
        "config", "provider", "add", "--name", "Local", "--kind", "ollama", "--base-url", fake_llm.base_url,
        "--no-key", env=env, cwd=home / "ws",
    )  # fmt: skip
    before = (home / "config" / "settings.json").read_text()
    for flags in (["--timeout", "soon"], ["--temperature", "9"]):
        result = cashcode("config", "provider", "set", "Local", *flags, env=env, cwd=home / "ws")
        assert result.returncode == 1 and result.stderr.startswith("cashcode: error:")
    assert (home / "config" / "settings.json").read_text() == before


def test_an_ollama_provider_without_a_model_uses_its_first_installed_one(home: Path, fake_llm: Any) -> None:
    env = _keyless_env(home)
    # As the app saves it when no model was chosen yet: a profile and no last model.
    profile = {"id": "local", "name": "Local", "kind": "ollama", "base_url": fake_llm.base_url}
    (home / "config").mkdir()
    (home / "config" / "settings.json").write_text(json.dumps({"providers": [profile]}))
    shown = cashcode("config", "show", env=env, cwd=home / "ws")
    assert "model: fake-model  (first installed Ollama model)" in shown.stdout, shown.stdout
    result = cashcode("ask", "hi", env=env, cwd=home / "ws")
    assert result.returncode == 0, result.stderr
    assert fake_llm.model_requests()[0].body["model"] == "fake-model"


def _tool_names(request: Any) -> set[str]:
    return {t["function"]["name"] for t in request.body.get("tools", [])}


def test_parallel_requests_and_lean_tools_are_set_from_the_terminal(home: Path, fake_llm: Any) -> None:
    """`--parallel-requests N` and `--lean-tools on|off|default` on add and set (issue 41): saved,
    listed, and the lean choice reaches the request; a bad value changes nothing."""
    from tests.cli.conftest import VALID_KEY

    env = _keyless_env(home)
    ws = home / "ws"
    added = cashcode(
        "config", "provider", "add", "--name", "Local", "--kind", "chat_completions",
        "--base-url", fake_llm.openai_base_url, "--model", "fake-model",
        "--parallel-requests", "2", "--lean-tools", "off", env=env, cwd=ws, stdin=VALID_KEY + "\n",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    [saved] = json.loads((home / "config" / "settings.json").read_text())["providers"]
    assert (saved["parallel_requests"], saved["lean_tools"]) == (2, False)
    listed = cashcode("config", "provider", "list", env=env, cwd=ws)
    assert "parallel requests: 2  lean tools: off" in listed.stdout
    # Off on a loopback server (lean by default): every tool goes up front.
    fake_llm.script({"text": "full"})
    assert cashcode("ask", "hi", env=env, cwd=ws).returncode == 0
    full = _tool_names(fake_llm.model_requests()[-1])
    assert {"create_note", "web_search"} <= full

    changed = cashcode(
        "config", "provider", "set", "Local", "--parallel-requests", "0", "--lean-tools", "on",
        env=env, cwd=ws,
    )  # fmt: skip
    assert changed.returncode == 0, changed.stderr
    assert (
        "parallel requests: no limit  lean tools: on"
        in cashcode("config", "provider", "list", env=env, cwd=ws).stdout
    )
    fake_llm.script({"text": "lean"})
    assert cashcode("ask", "hi", env=env, cwd=ws).returncode == 0
    lean = _tool_names(fake_llm.model_requests()[-1])
    assert "tool_search" in lean and not {"create_note", "web_search"} & lean
    assert len(lean) < len(full)

    # Only the flags given change: a timeout alone keeps both.
    assert cashcode("config", "provider", "set", "Local", "--timeout", "30", env=env, cwd=ws).returncode == 0
    [saved] = json.loads((home / "config" / "settings.json").read_text())["providers"]
    assert (saved["parallel_requests"], saved["lean_tools"]) == (0, True)

    before = (home / "config" / "settings.json").read_text()
    for flags in (["--parallel-requests", "many"], ["--parallel-requests", "99"], ["--lean-tools", "maybe"]):
        result = cashcode("config", "provider", "set", "Local", *flags, env=env, cwd=ws)
        assert result.returncode != 0 and "error" in result.stderr, flags
    assert (home / "config" / "settings.json").read_text() == before

    reset = cashcode(
        "config", "provider", "set", "Local", "--parallel-requests", "default", "--lean-tools", "default",
        env=env, cwd=ws,
    )  # fmt: skip
    assert reset.returncode == 0, reset.stderr
    [saved] = json.loads((home / "config" / "settings.json").read_text())["providers"]
    assert (saved.get("parallel_requests"), saved.get("lean_tools")) == (None, None)
    assert (
        "parallel requests: default  lean tools: default"
        in cashcode("config", "provider", "list", env=env, cwd=ws).stdout
    )
