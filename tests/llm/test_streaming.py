"""Every provider kind streams text, parallel tool calls and usage from the fake server."""

from __future__ import annotations

import json

import pytest

from app.contracts.messages import Message, ToolSpec
from app.contracts.provider import (
    ModelRequest,
    ReasoningDelta,
    StreamDone,
    TextDelta,
    ToolCallReady,
    ToolCallStarted,
    UsageReport,
)
from app.testing.fake_llm import FakeLLMServer
from tests.llm.conftest import VARIANTS, ProviderMaker, collect, user_request

TWO_CALLS = {
    "tool_calls": [
        {"name": "read_file", "arguments": {"path": "a.txt"}},
        {"name": "list_dir", "arguments": {"path": ".", "depth": 2}},
    ],
    "split_args": True,
}
TOOLS = (ToolSpec(name="read_file", description="Read a file"), ToolSpec(name="list_dir", description="List"))


@pytest.mark.parametrize("variant", VARIANTS)
async def test_streamed_text_arrives_as_ordered_deltas(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "Hello, streaming world!", "chunk_size": 3})
    events = await collect(make_provider(variant), user_request())
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == "Hello, streaming world!"
    assert events[-1] == StreamDone(finish_reason="stop")


@pytest.mark.parametrize("variant", VARIANTS)
async def test_two_parallel_tool_calls_with_split_arguments_become_two_complete_calls(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script(TWO_CALLS)
    events = await collect(make_provider(variant), user_request(tools=TOOLS))
    started = [e.name for e in events if isinstance(e, ToolCallStarted)]
    ready = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert started == ["read_file", "list_dir"]
    assert [c.name for c in ready] == ["read_file", "list_dir"]
    assert [json.loads(c.arguments) for c in ready] == [{"path": "a.txt"}, {"path": ".", "depth": 2}]
    assert len({c.id for c in ready}) == 2
    assert events[-1] == StreamDone(finish_reason="tool_calls")


@pytest.mark.parametrize("variant", VARIANTS)
async def test_usage_is_reported_with_the_scripted_numbers(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "ok", "usage": {"input": 42, "output": 7}})
    events = await collect(make_provider(variant), user_request())
    assert [e for e in events if isinstance(e, UsageReport)] == [
        UsageReport(input_tokens=42, output_tokens=7)
    ]


@pytest.mark.parametrize("variant", VARIANTS)
async def test_non_streamed_mode_yields_the_same_events(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "All at once.", "usage": {"input": 3, "output": 4}, **TWO_CALLS})
    events = await collect(make_provider(variant), user_request(tools=TOOLS, stream=False))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "All at once."
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [json.loads(c.arguments) for c in calls] == [{"path": "a.txt"}, {"path": ".", "depth": 2}]
    assert UsageReport(input_tokens=3, output_tokens=4) in events
    assert isinstance(events[-1], StreamDone)
    body = server.model_requests()[0].body
    assert not body.get("stream")


def _follow_up(calls: list[ToolCallReady]) -> tuple[Message, ...]:
    assistant = Message(role="assistant", content="", tool_calls=tuple(e.call for e in calls))
    results = tuple(
        Message(role="tool", content=f"result {i}", tool_call_id=e.call.id, name=e.call.name)
        for i, e in enumerate(calls)
    )
    return (Message(role="user", content="look around"), assistant, *results)


async def _two_turns(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> list[ToolCallReady]:
    server.script(TWO_CALLS, {"text": "Done."})
    provider = make_provider(variant)
    first = await collect(provider, user_request("look around", tools=TOOLS))
    calls = [e for e in first if isinstance(e, ToolCallReady)]
    follow_up = ModelRequest(model="fake-model", messages=_follow_up(calls), tools=TOOLS)
    second = await collect(provider, follow_up)
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "Done."
    return calls


@pytest.mark.parametrize("variant", ["chat_completions", "ollama_v1"])
async def test_tool_results_go_back_as_chat_tool_messages(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    calls = await _two_turns(variant, server, make_provider)
    body = server.model_requests()[1].body
    assert body["messages"][1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": e.call.id,
                "type": "function",
                "function": {"name": e.call.name, "arguments": e.call.arguments},
            }
            for e in calls
        ],
    }
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": calls[0].call.id, "content": "result 0"},
        {"role": "tool", "tool_call_id": calls[1].call.id, "content": "result 1"},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    assert body["stream_options"] == {"include_usage": True}


async def test_tool_results_go_back_as_responses_input_items(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    calls = await _two_turns("responses", server, make_provider)
    body = server.model_requests()[1].body
    assert body["input"] == [
        {"role": "user", "content": "look around"},
        *[
            {
                "type": "function_call",
                "call_id": e.call.id,
                "name": e.call.name,
                "arguments": e.call.arguments,
            }
            for e in calls
        ],
        {"type": "function_call_output", "call_id": calls[0].call.id, "output": "result 0"},
        {"type": "function_call_output", "call_id": calls[1].call.id, "output": "result 1"},
    ]
    assert "previous_response_id" not in body
    assert body["tools"][0]["name"] == "read_file" and body["tools"][0]["type"] == "function"


async def test_tool_results_go_back_to_native_ollama_by_tool_name(
    server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    await _two_turns("ollama_native", server, make_provider)
    body = server.model_requests()[1].body
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}},
            {"function": {"name": "list_dir", "arguments": {"path": ".", "depth": 2}}},
        ],
    }
    assert body["messages"][2:] == [
        {"role": "tool", "content": "result 0", "tool_name": "read_file"},
        {"role": "tool", "content": "result 1", "tool_name": "list_dir"},
    ]
    assert server.model_requests()[1].path == "/api/chat"


@pytest.mark.parametrize("variant", ["ollama_v1", "ollama_native"])
async def test_ollama_needs_no_api_key(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"text": "local"})
    events = await collect(make_provider(variant), user_request())
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["loca", "l"]
    expected_path = "/api/chat" if variant == "ollama_native" else "/v1/chat/completions"
    assert server.model_requests()[0].path == expected_path


@pytest.mark.parametrize("variant", VARIANTS)
async def test_reasoning_streams_separately_from_the_answer(
    variant: str, server: FakeLLMServer, make_provider: ProviderMaker
) -> None:
    server.script({"reasoning": "Let me think.", "text": "Answer.", "chunk_size": 5})
    events = await collect(make_provider(variant), user_request())
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Let me think."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Answer."
