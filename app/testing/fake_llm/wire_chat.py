"""Chat Completions wire shapes (SSE chunks and the non-streamed body) for one step."""

from __future__ import annotations

import json
import time
from typing import Any

from app.testing.fake_llm.script import Step, WireChunk, chunk_text, split_arguments

_ROLE: dict[str, Any] = {"role": "assistant", "content": ""}


def _sse(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def _usage(step: Step) -> dict[str, int]:
    u = step.usage_or_default()
    return {"prompt_tokens": u.input, "completion_tokens": u.output, "total_tokens": u.input + u.output}


def _tool_call_chunks(step: Step, step_no: int) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = []
    for i, call in enumerate(step.tool_calls):
        head = {
            "index": i,
            "id": step.call_id(step_no, i),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        deltas.append({"tool_calls": [head]})
        for part in split_arguments(call.arguments_json(), step.split_args):
            deltas.append({"tool_calls": [{"index": i, "function": {"arguments": part}}]})
    return deltas


def chat_stream_chunks(step: Step, step_no: int, model: str, include_usage: bool) -> list[WireChunk]:
    base = {
        "id": f"chatcmpl-{step_no}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> WireChunk:
        data = _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        return WireChunk(data=data, content=finish is None and delta != _ROLE)

    out = [chunk(_ROLE)]
    out += [chunk({"reasoning_content": part}) for part in chunk_text(step.reasoning, step.chunk_size)]
    out += [chunk({"content": part}) for part in step.text_chunks()]
    out += [chunk(delta) for delta in _tool_call_chunks(step, step_no)]
    out.append(chunk({}, "tool_calls" if step.tool_calls else "stop"))
    if include_usage:
        out.append(WireChunk(data=_sse({**base, "choices": [], "usage": _usage(step)})))
    out.append(WireChunk(data=b"data: [DONE]\n\n"))
    return out


def chat_completion_body(step: Step, step_no: int, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.tool_calls:
        message["tool_calls"] = [
            {
                "id": step.call_id(step_no, i),
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments_json()},
            }
            for i, c in enumerate(step.tool_calls)
        ]
    return {
        "id": f"chatcmpl-{step_no}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if step.tool_calls else "stop"}
        ],
        "usage": _usage(step),
    }


def chat_stream_error(step: Step) -> WireChunk:
    error = {
        "message": step.error_message or "The model failed mid-answer.",
        "type": "server_error",
        "code": step.error_code,
    }
    return WireChunk(data=_sse({"error": error}))
