"""What real local servers do (issue 34), reproduced by the fake LLM's quirks: the client sends
what each server takes, learns it per provider, and says what the server said when it fails."""

from __future__ import annotations

import logging

import pytest

from app.contracts.messages import Message, ToolCall, ToolSpec
from app.contracts.provider import (
    ModelLimits,
    ModelRequest,
    ProviderError,
    TextDelta,
    ToolCallReady,
)
from app.testing.fake_llm import FakeLLMServer
from app.testing.fake_llm.quirks import NULL_CONTENT_ERROR, STREAM_TOOLS_ERROR
from tests.llm.conftest import ProviderMaker, collect, fast_retry, user_request

READ = ToolSpec(name="read_file", description="Read a file", parameters={"type": "object", "properties": {}})


def _after_tool_call() -> ModelRequest:
    """A conversation whose assistant turn called a tool without text: content goes as null."""
    call = ToolCall(id="call_1", name="read_file", arguments='{"path": "a.txt"}')
    messages = (
        Message(role="user", content="read a.txt"),
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", content="hello", tool_call_id="call_1", name="read_file"),
    )
    return ModelRequest(model="fake-model", messages=messages, tools=(READ,))


async def test_null_content_refused_is_sent_again_with_empty_text_and_remembered(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.set_quirks("strict_content")
    server.script({"text": "It says hello."}, {"text": "Again."})
    provider = make_provider("chat_completions")
    events = await collect(provider, _after_tool_call())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It says hello."
    sent = [r.body["messages"][1]["content"] for r in server.model_requests()]
    assert sent == [None, ""] and [r.status for r in server.model_requests()] == [500, 200]
    # Remembered for this provider: the next request is sent as the server takes it at once.
    await collect(provider, _after_tool_call())
    assert [r.body["messages"][1]["content"] for r in server.model_requests()][2:] == [""]


async def test_tools_are_offered_with_tool_choice_auto(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.set_quirks("tool_choice_none")
    server.script({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]})
    events = await collect(make_provider("chat_completions"), user_request(tools=(READ,)))
    assert [e.call.name for e in events if isinstance(e, ToolCallReady)] == ["read_file"]
    assert server.model_requests()[0].body["tool_choice"] == "auto"


@pytest.mark.parametrize(
    ("quirks", "refused"),
    [
        # llama-cpp-python 0.3.36: 200, then the stream closes empty (what the real server did).
        (("llama_cpp",), 200),
        # The same refusal worded as a 500 (the error text names streaming).
        (("strict_content", "tool_choice_none", "no_stream_tools"), 500),
    ],
)
async def test_a_server_that_refuses_streaming_with_tools_gets_a_whole_request_remembered(
    server: FakeLLMServer, make_provider: ProviderMaker, quirks: tuple[str, ...], refused: int
) -> None:
    server.set_quirks(*quirks)
    server.script(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "It says hello."},
        {"text": "Plain chat streams."},
    )
    provider = make_provider("chat_completions")
    events = await collect(provider, user_request(tools=(READ,)))
    assert [e.call.name for e in events if isinstance(e, ToolCallReady)] == ["read_file"]
    events = await collect(provider, _after_tool_call())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It says hello."
    await collect(provider, user_request())  # no tools: streamed as always
    bodies = [
        (r.status, bool(r.body.get("stream")), r.body["messages"][-1].get("content"))
        for r in server.model_requests()
    ]
    # 1: streamed with tools refused; 2: whole; 3: straight away whole (remembered), null content
    # refused; 4: "" accepted; 5: no tools, streamed.
    assert [(s, stream) for s, stream, _ in bodies] == [
        (refused, True),
        (200, False),
        (500, False),
        (200, False),
        (200, True),
    ]


async def test_a_deterministic_500_is_sent_at_most_twice_and_its_message_shown(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script(*[{"error": 500, "error_message": "llama_decode returned -3"}] * 4)
    with pytest.raises(ProviderError) as info:
        await collect(make_provider("chat_completions", retry=fast_retry(max_retries=3)), user_request())
    assert len(server.model_requests()) == 2
    assert "llama_decode returned -3" in info.value.message


async def test_a_transient_503_keeps_its_retries(server: FakeLLMServer, make_provider: ProviderMaker) -> None:
    server.script(*[{"error": 503}] * 3, {"text": "ok"})
    events = await collect(make_provider("chat_completions", retry=fast_retry(max_retries=3)), user_request())
    assert any(isinstance(e, TextDelta) for e in events) and len(server.model_requests()) == 4


async def test_the_server_message_reaches_the_debug_log(
    server: FakeLLMServer, make_provider: ProviderMaker, caplog: pytest.LogCaptureFixture
) -> None:
    server.set_quirks("strict_content", "tool_choice_none")
    server.script(
        {"error": 500, "error_message": "the slot is busy"},
        {"error": 500, "error_message": "the slot is busy"},
    )
    with caplog.at_level(logging.DEBUG, logger="app.llm.errors"), pytest.raises(ProviderError):
        await collect(make_provider("chat_completions"), user_request())
    assert "the slot is busy" in caplog.text


async def test_stream_refusal_message_is_llama_cpp_pythons(server: FakeLLMServer) -> None:
    # The fake's wording is the one the client recognises (the word "stream").
    assert "stream" in STREAM_TOOLS_ERROR.lower() and "NoneType" in NULL_CONTENT_ERROR


async def test_an_sse_stream_served_as_text_plain_is_read(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.set_quirks("sse_text_plain")
    server.script({"text": "Plain but fine."})
    events = await collect(make_provider("chat_completions"), user_request())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Plain but fine."
    assert server.model_requests()[0].completed


async def test_text_plain_that_is_no_event_stream_is_a_bad_response(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"raw_body": "<html>login</html>", "raw_content_type": "text/plain"})
    with pytest.raises(ProviderError) as info:
        await collect(make_provider("chat_completions"), user_request())
    assert info.value.code == "bad_response" and "text/plain" in info.value.message


async def test_no_responses_api_is_said_with_the_url(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.set_quirks("no_responses")
    with pytest.raises(ProviderError) as info:
        await collect(make_provider("responses"), user_request())
    err = info.value
    assert err.code == "no_responses_api" and "has no Responses API" in err.message
    assert f"{server.base_url}/v1/responses" in err.message and "end in /v1" not in err.message


async def test_a_404_names_the_path_and_never_asks_for_v1_twice(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    # A base URL that already ends in /v1, on a path the server does not have.
    with pytest.raises(ProviderError) as info:
        await collect(
            make_provider("chat_completions", base_url=server.base_url + "/v1/extra"), user_request()
        )
    err = info.value
    assert err.code == "not_found" and "/v1/extra/v1/chat/completions" in err.message
    with pytest.raises(ProviderError) as info:
        await collect(make_provider("chat_completions", base_url=server.base_url + "/x"), user_request())
    # The config's base URL is "<root>/x/v1" here (the fixture adds /v1): no "add /v1" hint.
    assert "end in /v1" not in info.value.message


@pytest.mark.parametrize("quirk", ["models_html", "models_null"])
@pytest.mark.parametrize("variant", ["chat_completions", "ollama_v1"])
async def test_an_unreadable_model_list_is_an_error(
    quirk: str, variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.set_quirks(quirk)
    with pytest.raises(ProviderError) as info:
        await make_provider(variant).list_models()
    assert info.value.code == "bad_response" and "model list" in info.value.message


async def test_limits_of_the_profile_reach_every_wire_format(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    limits = {
        "*": ModelLimits(temperature=0.2, max_output_tokens=64),
        "fake-model": ModelLimits(context_length=2048),
    }
    for variant in ("chat_completions", "responses", "ollama_native"):
        await collect(make_provider(variant, model_limits=limits), user_request())
    chat, responses, native = (r.body for r in server.model_requests())
    assert (chat["temperature"], chat["max_tokens"]) == (0.2, 64)
    assert (responses["temperature"], responses["max_output_tokens"]) == (0.2, 64)
    assert native["options"] == {"temperature": 0.2, "num_predict": 64, "num_ctx": 2048}


async def test_a_first_token_timeout_counts_from_the_headers(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "late", "delay_s": 3.0})
    with pytest.raises(ProviderError) as info:
        await collect(make_provider("chat_completions", first_token_timeout_s=0.5), user_request())
    err = info.value
    assert err.code == "timeout" and err.details["setting"] == "first_token_timeout_s"
    assert "First-token timeout" in err.message and "--first-token-timeout" in err.message


async def test_a_timeout_names_the_setting_that_exists(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "late", "hang_s": 5.0})
    with pytest.raises(ProviderError) as info:
        await collect(make_provider("chat_completions", timeout_s=0.5), user_request())
    err = info.value
    assert err.code == "timeout" and err.details["setting"] == "timeout_s"
    assert "within 0.5 s" in err.message and "Timeout (Settings → Providers" in err.message
    assert "--timeout SECONDS" in err.message
