"""`web_search` through the real app against a local fake search server (never the internet)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired, ToolResultEvent
from app.websearch.ddg_html import parse_results
from tests.api.conftest import AppMaker, add_provider, err, ok, send
from tests.websearch.fake_search import KEY, PAGE, FakeSearch, fake_search


@pytest.fixture
def search_server() -> Iterator[FakeSearch]:
    with fake_search() as server:
        yield server


def test_the_recorded_duckduckgo_page_parses_into_results() -> None:
    results = parse_results(PAGE.decode())
    assert [(r.title, r.url) for r in results] == [
        ("SQLite FTS5 Extension", "https://sqlite.org/fts5.html"),
        ("Full-text search & CJK: 中文分词", "https://www.example.org/blog/fts?x=1&y=2"),
        ("A result without a snippet", "https://example.com/no-snippet"),
    ]
    assert (
        results[0].snippet == "The trigram tokenizer extends FTS5 to support substring matching in general."
    )
    assert results[1].snippet == "Searching Chinese text with trigrams — 无需分词。"
    assert results[2].snippet == ""


async def _search(app: Any, rec: Any, fake_llm: Any, query: str, **extra: Any) -> ToolResultEvent:
    pid = await add_provider(app, fake_llm, "chat_completions")
    chat = await ok(app, "chats.create")
    fake_llm.script(
        {"tool_calls": [{"name": "web_search", "arguments": {"query": query, **extra}}]}, {"text": "Done."}
    )
    turn = await send(app, chat["id"], "search please", pid)
    await rec.until(lambda: bool(rec.of(ToolResultEvent)) or bool(rec.of(ApprovalRequired)))
    if rec.of(ApprovalRequired):
        asked = rec.of(ApprovalRequired)[0]
        await ok(app, "chat.approve", {"approval_id": asked.approval_id, "decision": "always"})
    assert (await rec.turn_end(turn)).type == "turn_done"
    result: ToolResultEvent = rec.of(ToolResultEvent)[0]
    return result


async def test_duckduckgo_results_come_back_and_the_host_is_asked_once(
    make_app: AppMaker, fake_llm: Any, search_server: FakeSearch
) -> None:
    app, rec = await make_app()
    await ok(app, "websearch.save", {"backend": "duckduckgo", "base_url": search_server.url("/html/")})
    result = await _search(app, rec, fake_llm, "sqlite fts5 trigram")
    assert result.ok
    assert (
        "1. SQLite FTS5 Extension\n   https://sqlite.org/fts5.html\n   The trigram tokenizer" in result.output
    )
    assert "2. Full-text search & CJK: 中文分词" in result.output and "Sponsored" not in result.output
    [asked] = rec.of(ApprovalRequired)
    assert asked.tool == "web_search" and asked.can_always and "127.0.0.1" in asked.title
    assert "sqlite fts5 trigram" in asked.detail
    assert search_server.requests[-1]["body"] == "q=sqlite+fts5+trigram"
    grants = (await ok(app, "approvals.list"))["grants"]
    assert [(g["kind"], g["key"]) for g in grants] == [("web_host", ["127.0.0.1"])]
    # The model saw the results.
    tool_msg = [m for m in fake_llm.requests[-1].body["messages"] if m["role"] == "tool"][0]
    assert "https://sqlite.org/fts5.html" in tool_msg["content"]

    # The grant covers the host: the next search does not ask.
    rec.events.clear()
    again = await _search(app, rec, fake_llm, "second")
    assert again.ok and rec.of(ApprovalRequired) == []


async def test_searxng_and_keyed_backends_return_at_most_the_requested_results(
    make_app: AppMaker, fake_llm: Any, search_server: FakeSearch, secrets: Any
) -> None:
    app, rec = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    await ok(app, "websearch.save", {"backend": "searxng", "base_url": search_server.url("/searx")})
    result = await _search(app, rec, fake_llm, "anything")
    assert result.output.count("https://example.com/") == 10  # capped at 10 of 12
    assert search_server.requests[-1]["query"] == {"q": ["anything"], "format": ["json"]}

    view = await ok(
        app,
        "websearch.save",
        {"backend": "brave", "base_url": search_server.url("/brave/search"), "api_key": KEY},
    )
    assert view["api_key"] == "********" and view["has_key"] and KEY not in json.dumps(view)
    assert secrets.get("websearch:brave:api_key") == KEY
    assert KEY not in (await ok(app, "settings.get")).__repr__()
    rec.events.clear()
    brave = await _search(app, rec, fake_llm, "q", count=3)
    assert brave.output.count("https://example.com/") == 3 and "Snippet 0" in brave.output

    await ok(
        app,
        "websearch.save",
        {"backend": "tavily", "base_url": search_server.url("/tavily/search"), "api_key": "wrong-key-123"},
    )
    rec.events.clear()
    refused = await _search(app, rec, fake_llm, "q")
    assert not refused.ok and "check the API key in Settings → Web search" in refused.output


async def test_an_unreachable_backend_gives_a_clear_error(make_app: AppMaker, fake_llm: Any) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app, rec = await make_app()
    await ok(app, "settings.update", {"approval_mode": "autonomous"})
    await ok(app, "websearch.save", {"backend": "duckduckgo", "base_url": f"http://127.0.0.1:{port}/html/"})
    result = await _search(app, rec, fake_llm, "offline")
    assert not result.ok
    assert (
        "Web search failed: cannot reach 127.0.0.1" in result.output
        and "Settings → Web search" in result.output
    )


async def test_bad_web_search_settings_are_refused(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert (await err(app, "websearch.save", {"backend": "searxng"}))["code"] == "invalid"
    assert (await err(app, "websearch.save", {"backend": "duckduckgo", "base_url": "file:///etc"}))[
        "code"
    ] == "invalid"
    view = await ok(app, "websearch.get")
    assert view["backend"] == "duckduckgo" and view["default_url"] == "https://html.duckduckgo.com/html/"
    tools = [t["name"] for t in (await ok(app, "tools.list"))["tools"]]
    assert "web_search" in tools


async def test_every_redirect_hop_goes_through_the_ssrf_guard(
    make_app: AppMaker, fake_llm: Any, search_server: FakeSearch
) -> None:
    """Issue 23 item 12: the configured local instance is trusted; where it redirects is not."""
    app, rec = await make_app()
    await ok(app, "websearch.save", {"backend": "searxng", "base_url": search_server.url("/moved")})
    moved = await _search(app, rec, fake_llm, "same host")
    assert moved.ok and "https://example.com/0" in moved.output  # same host and port: fine
    assert [r["path"] for r in search_server.requests[-2:]] == ["/moved/search", "/searx/search"]

    search_server.requests.clear()
    rec.events.clear()
    await ok(app, "websearch.save", {"backend": "searxng", "base_url": search_server.url("/away")})
    away = await _search(app, rec, fake_llm, "other host")
    assert not away.ok and "localhost" in away.output and "blocked" in away.output
    assert [r["path"] for r in search_server.requests] == ["/away/search"]  # the hop never connected
