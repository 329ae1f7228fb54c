"""Ollama native wire shapes: /api/chat NDJSON chunks and bodies, /api/tags, /api/show."""

from __future__ import annotations

import json
from typing import Any

from app.testing.fake_llm.script import Step, WireChunk, chunk_text

_CREATED = "2026-01-01T00:00:00Z"


def _line(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode() + b"\n"


def _tool_call(step: Step, i: int) -> dict[str, Any]:
    call = step.tool_calls[i]
    # Native Ollama sends complete calls with `arguments` as a JSON object, never split.
    return {"function": {"index": i, "name": call.name, "arguments": call.arguments}}


def _final(step: Step, model: str, message: dict[str, Any]) -> dict[str, Any]:
    u = step.usage_or_default()
    return {
        "model": model,
        "created_at": _CREATED,
        "message": message,
        "done": True,
        "done_reason": "stop",
        "total_duration": 1000,
        "prompt_eval_count": u.input,
        "eval_count": u.output,
    }


def chat_stream_lines(step: Step, model: str) -> list[WireChunk]:
    def msg(**fields: Any) -> WireChunk:
        return WireChunk(
            content=True,
            data=_line(
                {
                    "model": model,
                    "created_at": _CREATED,
                    "message": {"role": "assistant", "content": "", **fields},
                    "done": False,
                }
            ),
        )

    out = [msg(thinking=part) for part in chunk_text(step.reasoning, step.chunk_size)]
    out += [msg(content=part) for part in step.text_chunks()]
    out += [msg(tool_calls=[_tool_call(step, i)]) for i in range(len(step.tool_calls))]
    out.append(WireChunk(data=_line(_final(step, model, {"role": "assistant", "content": ""}))))
    return out


def chat_body(step: Step, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.text}
    if step.tool_calls:
        message["tool_calls"] = [_tool_call(step, i) for i in range(len(step.tool_calls))]
    return _final(step, model, message)


def tags_body(models: list[str]) -> dict[str, Any]:
    return {
        "models": [
            {
                "name": m,
                "model": m,
                "modified_at": _CREATED,
                "size": 1_000_000,
                "digest": f"sha256:{i:064x}",
                "details": {"family": "fake", "parameter_size": "1B", "quantization_level": "Q4_0"},
            }
            for i, m in enumerate(models)
        ]
    }


def show_body(capabilities: list[str], context_length: int) -> dict[str, Any]:
    return {
        "capabilities": capabilities,
        "details": {"family": "fake"},
        "model_info": {"general.architecture": "fake", "fake.context_length": context_length},
    }


def chat_stream_error(step: Step) -> WireChunk:
    return WireChunk(data=_line({"error": step.error_message or "the model failed mid-answer"}))
