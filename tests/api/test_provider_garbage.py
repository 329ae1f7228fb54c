"""A proxy's HTML page or a garbage event stream answering a chat request is a provider error
that says what came back, and nothing is stored."""

from __future__ import annotations

from typing import Any

import pytest

from app.contracts.events import TurnFailed
from tests.api.conftest import AppMaker, add_provider, ok, send

HTML = "<!doctype html><html><head><title>Sign in</title></head><body>Corporate proxy login</body></html>"


@pytest.mark.parametrize(
    ("kind", "body", "content_type", "expected"),
    [
        ("chat_completions", HTML, "text/html; charset=utf-8", "an HTML page titled 'Sign in'"),
        ("responses", HTML, "text/html; charset=utf-8", "an HTML page titled 'Sign in'"),
        ("chat_completions", "data: {not json at all\n\n", "text/event-stream", "could not be read"),
        ("chat_completions", 'data: {"weird": true}\n\ndata: [DONE]\n\n', "text/event-stream", "model reply"),
        ("responses", "event: response.created\ndata: [[[\n\n", "text/event-stream", "could not be read"),
    ],
)
async def test_garbage_answers_are_a_provider_error_and_store_nothing(
    make_app: AppMaker, fake_llm: Any, kind: str, body: str, content_type: str, expected: str
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, kind)
    fake_llm.script(*[{"raw_body": body, "raw_content_type": content_type}] * 6)
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid)
    end = await events.turn_end(turn)
    assert isinstance(end, TurnFailed), end
    assert end.error.code == "bad_response", end.error
    assert "instead of a model reply" in end.error.message
    assert expected.lower() in end.error.message.lower(), end.error.message
    assert "Traceback" not in end.error.message
    detail = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert detail["messages"] == []


@pytest.mark.parametrize("kind", ["chat_completions", "responses"])
async def test_an_html_page_answering_a_whole_reply_request_is_a_bad_response(
    make_app: AppMaker, fake_llm: Any, kind: str
) -> None:
    app, events = await make_app(stream=False)
    pid = await add_provider(app, fake_llm, kind)
    fake_llm.script(*[{"raw_body": HTML}] * 6)
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid)
    end = await events.turn_end(turn)
    assert isinstance(end, TurnFailed) and end.error.code == "bad_response", end
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []
