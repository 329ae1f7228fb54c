"""The fast chunk path builds the same ChatCompletionChunk as the SDK's lenient build, and a
chunk that bends the schema still parses the lenient way (streaming over HTTP: test_streaming)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from openai._models import construct_type
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from app.llm.fast_chunks import fast_client_class

BASE = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {**BASE, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


CALL = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"pa'}}
CHUNKS: list[dict[str, Any]] = [
    chunk({"role": "assistant", "content": "你好 **x**"}),
    chunk({"tool_calls": [CALL]}),
    chunk({}, "tool_calls"),
    {**BASE, "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}},
    chunk({"reasoning_content": "think"}, x_extra=1),
]
BENT: list[dict[str, Any]] = [
    {"id": "c1", "model": "m", "choices": [{"delta": {"content": "no index, no created"}}]},
    {**BASE, "choices": [{"index": 0, "delta": {"content": None, "role": "model"}, "finish_reason": "odd"}]},
]


def process(data: dict[str, Any], cast_to: Any = ChatCompletionChunk) -> Any:
    client = fast_client_class()(base_url="http://127.0.0.1:9/v1", api_key="sk-test", max_retries=0)
    return client._process_response_data(data=data, cast_to=cast_to, response=httpx2.Response(200))


@pytest.mark.parametrize("data", CHUNKS + BENT)
def test_a_chunk_is_built_like_the_sdk_builds_it(data: dict[str, Any]) -> None:
    fast = process(data)
    lenient = construct_type(type_=ChatCompletionChunk, value=data)
    assert isinstance(fast, ChatCompletionChunk) and isinstance(lenient, ChatCompletionChunk)
    assert fast.model_dump() == lenient.model_dump()
    assert fast.to_dict() == data


def test_other_response_types_keep_the_sdk_path() -> None:
    data = {"id": "r", "object": "chat.completion", "created": 1, "model": "m", "choices": []}
    expected = construct_type(type_=ChatCompletion, value=data)
    assert isinstance(expected, ChatCompletion)
    assert process(data, ChatCompletion).model_dump() == expected.model_dump()


@pytest.mark.parametrize(("data", "lenient"), [(c, False) for c in CHUNKS] + [(c, True) for c in BENT])
def test_only_chunks_that_bend_the_schema_take_the_slow_lenient_build(
    data: dict[str, Any], lenient: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import openai._base_client as base_client

    calls: list[object] = []
    real = base_client.construct_type  # type: ignore[attr-defined]  # the SDK's own import, patched there

    def spy(*, type_: Any, value: object) -> object:
        calls.append(value)
        return real(type_=type_, value=value)

    monkeypatch.setattr(base_client, "construct_type", spy)
    process(data)
    assert bool(calls) is lenient
