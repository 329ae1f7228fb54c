"""Server modes ("quirks") that reproduce what real local servers do, so CI tests the client
against them without building llama.cpp (issue 34). Each is off unless asked for:

- `strict_content`: an assistant message with `tool_calls` whose `content` is null or missing
  is answered HTTP 500, as llama-cpp-python does (it wants a string; "" passes).
- `tool_choice_none`: tools are ignored (no tool calls) unless `tool_choice` is "auto",
  "required" or names a function: llama-cpp-python reads a missing tool_choice as "none".
- `no_stream_tools`: a streamed request with tools and `tool_choice: "auto"` is refused with
  llama-cpp-python's error ("Automatic streaming tool choice is not supported") as a 500.
- `empty_stream_tools`: the same request is answered 200 `text/event-stream` and the stream
  closes with no event: what llama-cpp-python 0.3.36's server really does (its handler raises
  that error after the headers went out; seen with bench/bench_local_model.py).
- `no_responses`: `/v1/responses` is 404 (`{"detail": "Not Found"}`, a FastAPI server).
- `sse_text_plain`: streamed answers are valid SSE served as `text/plain`.
- `models_html` / `models_empty` / `models_null`: `/v1/models` and `/api/tags` answer an HTML
  page, an empty list or a `null` list.

`llama_cpp` names the four llama-cpp-python 0.3.36 behaviours at once. Select them with
`FakeLLMServer(quirks=...)`, `FakeLLMServer.set_quirks(...)` or `--quirk NAME` (repeatable).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.testing.fake_llm.replies import JsonReply, Reply, StreamReply
from app.testing.fake_llm.script import Step, WireChunk

QUIRKS = frozenset(
    {
        "strict_content",
        "tool_choice_none",
        "no_stream_tools",
        "empty_stream_tools",
        "no_responses",
        "sse_text_plain",
        "models_html",
        "models_empty",
        "models_null",
    }
)
PRESETS = {
    "llama_cpp": frozenset({"strict_content", "tool_choice_none", "empty_stream_tools", "no_responses"})
}

# llama-cpp-python's words (llama_cpp/server: an exception becomes a 500 with its text).
NULL_CONTENT_ERROR = 'can only concatenate str (not "NoneType") to str'
STREAM_TOOLS_ERROR = "Automatic streaming tool choice is not supported"
MODELS_HTML = "<!doctype html><html><head><title>Welcome</title></head><body>Not an API</body></html>"


def parse_quirks(names: Iterable[str]) -> frozenset[str]:
    out: set[str] = set()
    for name in names:
        if name in PRESETS:
            out |= PRESETS[name]
        elif name in QUIRKS:
            out.add(name)
        else:
            known = ", ".join(sorted(QUIRKS | PRESETS.keys()))
            raise ValueError(f"unknown fake LLM quirk {name!r} (known: {known})")
    return frozenset(out)


def _server_error(message: str) -> JsonReply:
    body = {"error": {"message": message, "type": "internal_server_error", "param": None, "code": None}}
    return JsonReply(500, body)


def _tool_choice_on(body: dict[str, Any]) -> bool:
    choice = body.get("tool_choice")
    return choice in ("auto", "required") or isinstance(choice, dict)


def refusal(quirks: frozenset[str], path: str, body: Any) -> Reply | None:
    """The answer a quirky server gives instead of a model reply, or None."""
    if not isinstance(body, dict):
        return None
    if path == "/v1/responses" and "no_responses" in quirks:
        return JsonReply(404, {"detail": "Not Found"})
    if path != "/v1/chat/completions":
        return None
    if "strict_content" in quirks:
        for message in body.get("messages") or ():
            if (
                isinstance(message, dict)
                and message.get("tool_calls")
                and not isinstance(message.get("content"), str)
            ):
                return _server_error(NULL_CONTENT_ERROR)
    streams_tools = bool(body.get("stream") and body.get("tools") and body.get("tool_choice") == "auto")
    if streams_tools and "no_stream_tools" in quirks:
        return _server_error(STREAM_TOOLS_ERROR)
    if streams_tools and "empty_stream_tools" in quirks:
        return StreamReply("text/event-stream; charset=utf-8", [])
    return None


def offered_step(quirks: frozenset[str], body: dict[str, Any], step: Step) -> Step:
    """`tool_choice_none`: without a tool choice the model never calls a tool."""
    if "tool_choice_none" in quirks and step.tool_calls and not _tool_choice_on(body):
        return step.model_copy(update={"tool_calls": []})
    return step


def stream_type(quirks: frozenset[str], media_type: str) -> str:
    return (
        "text/plain; charset=utf-8"
        if "sse_text_plain" in quirks and media_type == "text/event-stream"
        else media_type
    )


def model_list(quirks: frozenset[str], ollama: bool) -> Reply | None:
    """A broken model list (`/v1/models`, or Ollama's `/api/tags`), or None for the real one."""
    if "models_html" in quirks:
        return StreamReply("text/html; charset=utf-8", [WireChunk(data=MODELS_HTML.encode())])
    key = "models" if ollama else "data"
    if "models_empty" in quirks:
        return JsonReply(200, {key: []} if ollama else {"object": "list", key: []})
    if "models_null" in quirks:
        return JsonReply(200, {key: None} if ollama else {"object": "list", key: None})
    return None


__all__ = ["PRESETS", "QUIRKS", "model_list", "offered_step", "parse_quirks", "refusal", "stream_type"]
