"""Issue 34 item 4: a local provider gets a lean request. Its fixed prefix (system messages and
tool schemas) stays small and byte-identical from turn to turn; the tools not offered up front
are found with tool_search, and one called by name still runs (and is offered from then on)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.contracts.provider import ProviderConfig, ProviderKind
from app.llm.local import is_local, parallel_limit
from app.testing.fake_llm import RecordedRequest
from tests.api.conftest import AppMaker, add_provider, err, ok, send

PREFIX_BUDGET = 4_500  # characters: system message(s) + the JSON of the tool schemas


def fixed_prefix(request: RecordedRequest) -> str:
    """What comes before the conversation: the leading system messages and the tools."""
    messages = request.body["messages"]
    system = [
        m["content"] for m in messages[: next(i for i, m in enumerate(messages) if m["role"] != "system")]
    ]
    return "".join(system) + json.dumps(request.body.get("tools", []))


def offered(request: RecordedRequest) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


async def _turn(app: Any, events: Any, chat: str, pid: str, text: str) -> None:
    turn = await send(app, chat, text, pid)
    assert (await events.turn_end(turn)).type == "turn_done"


async def test_a_local_providers_fixed_prefix_is_small_and_byte_identical_across_turns(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    await _turn(app, events, chat, pid, "hello")
    await _turn(app, events, chat, pid, "hello again")
    first, second = fake_llm.model_requests()
    assert len(fixed_prefix(first)) <= PREFIX_BUDGET, len(fixed_prefix(first))
    assert fixed_prefix(second) == fixed_prefix(first)  # byte-identical: a server's prompt cache holds
    assert offered(first) == [
        "read_file",
        "write_file",
        "edit_file",
        "list_dir",
        "grep",
        "exec",
        "tool_search",
        "mcp_prepare",
    ]
    # The conversation follows the prefix: turn two starts with turn one's messages as they were.
    assert second.body["messages"][: len(first.body["messages"])] == first.body["messages"]


async def test_a_builtin_tool_that_was_not_offered_still_runs_and_is_offered_from_then_on(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    (workspace / "notes.md").write_text("n")
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.md"}}]}, {"text": "found it"}
    )
    await _turn(app, events, chat, pid, "which markdown files are there?")
    await _turn(app, events, chat, pid, "thanks")
    asked, answered, later = fake_llm.model_requests()
    assert "glob" not in offered(asked)
    result = answered.body["messages"][-1]
    assert result["role"] == "tool" and "notes.md" in result["content"]
    assert "glob" in offered(answered) and "glob" in offered(later)  # activated by its use
    glob_spec = next(t for t in answered.body["tools"] if t["function"]["name"] == "glob")
    assert "pattern" in glob_spec["function"]["parameters"]["properties"]  # its full schema


async def test_tool_search_finds_a_deferred_tool_and_offers_it_at_the_next_step(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    fake_llm.script(
        {"tool_calls": [{"name": "tool_search", "arguments": {"query": "fetch a web page url"}}]},
        {"text": "ok"},
    )
    await _turn(app, events, chat, pid, "read example.org for me")
    asked, answered = fake_llm.model_requests()
    assert "web_fetch" not in offered(asked)
    assert "web_fetch" in answered.body["messages"][-1]["content"]
    assert "web_fetch" in offered(answered)


def test_local_means_loopback_or_ollama_and_sets_the_default_parallel_requests() -> None:
    def config(url: str, kind: ProviderKind = ProviderKind.CHAT_COMPLETIONS, **kw: Any) -> ProviderConfig:
        return ProviderConfig(id="p", kind=kind, base_url=url, **kw)

    assert is_local(config("http://127.0.0.1:8080/v1")) and is_local(config("http://localhost:11434/v1"))
    assert is_local(config("http://[::1]:8080/v1"))
    assert is_local(config("http://gpu-box:11434", ProviderKind.OLLAMA))  # Ollama anywhere: few slots
    assert not is_local(config("https://api.openai.com/v1"))
    assert parallel_limit(config("http://127.0.0.1:8080/v1")) == 1
    assert parallel_limit(config("https://api.openai.com/v1")) is None
    assert parallel_limit(config("http://127.0.0.1:8080/v1", parallel_requests=0)) is None
    assert parallel_limit(config("https://api.openai.com/v1", parallel_requests=2)) == 2


async def test_a_users_prompt_lists_no_builtin_test_mcp_servers_when_they_are_off(
    make_app: AppMaker, fake_llm: Any
) -> None:
    """The built-in catalog holds only the test servers, which the MCP service loads only when
    they are on: the prompt no longer offers a user three servers that cannot be prepared."""
    app, events = await make_app(env={"CASHCODE_MCP_TEST_SERVERS": "0"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = (await ok(app, "chats.create"))["id"]
    await _turn(app, events, chat, pid, "hello")
    request = fake_llm.model_requests()[-1]
    assert "test_stdio_mcp" not in request.body["messages"][0]["content"]
    assert len(fixed_prefix(request)) <= 3_500


async def test_the_provider_settings_are_saved_checked_and_kept_by_a_save_that_leaves_them_out(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, _ = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fields = {"id": pid, "name": "Fake", "kind": "chat_completions", "base_url": fake_llm.openai_base_url}
    saved = await ok(
        app, "providers.save", {**fields, "api_key": "********", "parallel_requests": 2, "lean_tools": False}
    )
    assert (saved["parallel_requests"], saved["lean_tools"], saved["local"]) == (2, False, True)
    # The provider form today sends neither field: a rename keeps both.
    renamed = await ok(app, "providers.save", {**fields, "name": "Renamed", "api_key": "********"})
    assert (renamed["name"], renamed["parallel_requests"], renamed["lean_tools"]) == ("Renamed", 2, False)
    bad = await err(app, "providers.save", {**fields, "api_key": "********", "parallel_requests": -1})
    assert bad["code"] == "invalid"
    listed = (await ok(app, "providers.list"))["providers"]
    assert [(p["parallel_requests"], p["lean_tools"]) for p in listed] == [(2, False)]  # nothing changed
    # Back to the defaults with null.
    reset = await ok(
        app,
        "providers.save",
        {**fields, "api_key": "********", "parallel_requests": None, "lean_tools": None},
    )
    assert (reset["parallel_requests"], reset["lean_tools"]) == (None, None)
