"""Provider faults → a clear message with a stable code, and nothing stored (issue 7 matrix)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.contracts.events import TurnFailed
from tests.api.conftest import AppMaker, add_provider, ok, send

HTML = "<html><head><title>Proxy login</title></head><body>log in</body></html>"
SSE = "text/event-stream"
TEXT = {"text": "a long enough answer to be cut part way through"}


def quick_factory(config: Any) -> Any:
    """Real providers, tiny backoff and a 1 s timeout so hang/stall cases stay quick."""
    from app.llm.factory import create_provider
    from app.llm.retry import RetryPolicy

    return create_provider(
        dataclasses.replace(config, timeout_s=1.0),
        retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.02, retry_after_cap_s=0.02),
    )


CASES: dict[str, tuple[list[dict[str, Any]], set[str], str]] = {
    "401": ([{"error": 401}], {"auth"}, "key"),
    "403": ([{"error": 403}], {"auth", "bad_request", "not_found", "server"}, ""),
    "404": ([{"error": 404}], {"not_found", "model_not_found"}, ""),
    "429": ([{"error": 429}] * 5, {"rate_limit"}, ""),
    "500": ([{"error": 500}] * 5, {"server"}, ""),
    "hang": ([{**TEXT, "hang_s": 30}] * 5, {"timeout", "unreachable"}, ""),
    "stall": ([{**TEXT, "delay_s": 30}] * 5, {"timeout", "disconnected"}, ""),
    "disconnect": ([{**TEXT, "disconnect_after": 1}] * 5, {"disconnected"}, "dropped"),
    "garbage_sse": ([{"raw_body": "data: {{{\n\n", "raw_content_type": SSE}], {"bad_response"}, ""),
    "html_200": ([{"raw_body": HTML}], {"bad_response"}, "Proxy login"),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_each_fault_is_a_clear_error_and_stores_nothing(
    make_app: AppMaker, fake_llm: Any, case: str
) -> None:
    steps, codes, words = CASES[case]
    app, events = await make_app(provider_factory=quick_factory)
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(*steps)
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid)
    end = await events.turn_end(turn, timeout_s=30)
    assert isinstance(end, TurnFailed), end
    assert end.error.code in codes, end.error
    message = end.error.message
    assert message and "Traceback" not in message and "\n" not in message.strip()
    assert words.lower() in message.lower()
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []
