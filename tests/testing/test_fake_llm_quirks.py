"""The fake LLM's quirks reproduce what real local servers do (issue 34), over real HTTP."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from app.testing.fake_llm import FakeLLMServer
from app.testing.fake_llm.quirks import NULL_CONTENT_ERROR, STREAM_TOOLS_ERROR, parse_quirks

AUTH = {"Authorization": "Bearer k"}
TOOL = {"type": "function", "function": {"name": "read_file", "description": "", "parameters": {}}}
CALL = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as s:
        yield s


def _chat(server: FakeLLMServer, **body: Any) -> httpx2.Response:
    payload = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}], **body}
    return httpx2.post(server.openai_base_url + "/chat/completions", json=payload, headers=AUTH)


def _history(content: Any = None, *, drop: bool = False) -> list[dict[str, Any]]:
    assistant: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": [CALL]}
    if drop:
        del assistant["content"]
    return [
        {"role": "user", "content": "read"},
        assistant,
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
    ]


def test_strict_content_refuses_null_and_missing_content_next_to_tool_calls(server: FakeLLMServer) -> None:
    server.set_quirks("strict_content")
    server.script({"text": "ok"})
    for messages in (_history(None), _history(drop=True)):
        refused = _chat(server, messages=messages)
        assert refused.status_code == 500 and refused.json()["error"]["message"] == NULL_CONTENT_ERROR
    assert _chat(server, messages=_history("")).json()["choices"][0]["message"]["content"] == "ok"
    assert server.pending_steps == 0  # refusals took no scripted step


def test_tool_choice_defaults_to_none(server: FakeLLMServer) -> None:
    server.set_quirks("tool_choice_none")
    call = {"tool_calls": [{"name": "read_file", "arguments": {}}]}
    server.script(call, call)
    assert _chat(server, tools=[TOOL]).json()["choices"][0]["message"].get("tool_calls") is None
    calls = _chat(server, tools=[TOOL], tool_choice="auto").json()["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read_file"]


def test_streaming_with_tool_choice_auto_is_refused(server: FakeLLMServer) -> None:
    server.set_quirks("no_stream_tools")
    refused = _chat(server, tools=[TOOL], tool_choice="auto", stream=True)
    assert refused.status_code == 500 and refused.json()["error"]["message"] == STREAM_TOOLS_ERROR
    assert _chat(server, tools=[TOOL], tool_choice="auto").status_code == 200
    assert _chat(server, stream=True).status_code == 200


def test_streaming_with_tools_is_answered_by_an_empty_event_stream(server: FakeLLMServer) -> None:
    """llama-cpp-python 0.3.36: 200 and an event stream that closes with no event."""
    server.set_quirks("empty_stream_tools")
    empty = _chat(server, tools=[TOOL], tool_choice="auto", stream=True)
    assert empty.status_code == 200 and empty.headers["content-type"].startswith("text/event-stream")
    assert empty.text == ""
    assert _chat(server, tools=[TOOL], tool_choice="auto").status_code == 200
    assert "data: [DONE]" in _chat(server, stream=True).text


def test_no_responses_and_sse_as_text_plain(server: FakeLLMServer) -> None:
    server.set_quirks("no_responses", "sse_text_plain")
    gone = httpx2.post(
        server.openai_base_url + "/responses", json={"model": "fake-model", "input": "hi"}, headers=AUTH
    )
    assert gone.status_code == 404 and gone.json() == {"detail": "Not Found"}
    streamed = _chat(server, stream=True)
    assert streamed.headers["content-type"].startswith("text/plain") and "data: [DONE]" in streamed.text


@pytest.mark.parametrize(
    ("quirk", "openai_body", "ollama_body"),
    [
        ("models_empty", {"object": "list", "data": []}, {"models": []}),
        ("models_null", {"object": "list", "data": None}, {"models": None}),
    ],
)
def test_broken_model_lists(server: FakeLLMServer, quirk: str, openai_body: Any, ollama_body: Any) -> None:
    server.set_quirks(quirk)
    assert httpx2.get(server.openai_base_url + "/models", headers=AUTH).json() == openai_body
    assert httpx2.get(server.base_url + "/api/tags").json() == ollama_body


def test_an_html_model_list(server: FakeLLMServer) -> None:
    server.set_quirks("models_html")
    page = httpx2.get(server.openai_base_url + "/models", headers=AUTH)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


def test_the_llama_cpp_preset_and_unknown_names() -> None:
    assert parse_quirks(["llama_cpp"]) == {
        "strict_content",
        "tool_choice_none",
        "empty_stream_tools",
        "no_responses",
    }
    with pytest.raises(ValueError, match="unknown fake LLM quirk 'typo'"):
        parse_quirks(["typo"])


def test_the_process_takes_quirk_flags() -> None:
    cmd = [
        sys.executable,
        "-m",
        "app.testing.fake_llm",
        "--port",
        "0",
        "--print-port",
        "--quirk",
        "no_responses",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        base = f"http://127.0.0.1:{int(line.removeprefix('PORT='))}"
        gone = httpx2.post(base + "/v1/responses", json={"model": "fake-model", "input": "hi"}, headers=AUTH)
        assert gone.status_code == 404
    finally:
        proc.terminate()
        proc.wait(timeout=10)
