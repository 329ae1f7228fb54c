"""Responses API wire shapes (SSE events and the non-streamed body) for one step."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from app.testing.fake_llm.script import Step, WireChunk, chunk_text, split_arguments


def _event(kind: str, seq: int, **fields: Any) -> WireChunk:
    payload = {"type": kind, "sequence_number": seq, **fields}
    data = f"event: {kind}\ndata: {json.dumps(payload)}\n\n".encode()
    return WireChunk(data=data, content=kind.endswith(".delta"))


def _usage(step: Step) -> dict[str, Any]:
    u = step.usage_or_default()
    return {
        "input_tokens": u.input,
        "output_tokens": u.output,
        "total_tokens": u.input + u.output,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }


def _message_item(step_no: int, text: str, status: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if status == "completed" else []
    return {
        "type": "message",
        "id": f"msg_{step_no}",
        "role": "assistant",
        "status": status,
        "content": content,
    }


def _call_item(step: Step, step_no: int, i: int, status: str) -> dict[str, Any]:
    call = step.tool_calls[i]
    args = call.arguments_json() if status == "completed" else ""
    return {
        "type": "function_call",
        "id": f"fc_{step_no}_{i}",
        "call_id": step.call_id(step_no, i),
        "name": call.name,
        "arguments": args,
        "status": status,
    }


def _response(step: Step, step_no: int, model: str, status: str) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if status == "completed":
        if step.text:
            output.append(_message_item(step_no, step.text, "completed"))
        output += [_call_item(step, step_no, i, "completed") for i in range(len(step.tool_calls))]
    return {
        "id": f"resp_{step_no}",
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": _usage(step) if status == "completed" else None,
    }


def _reasoning_events(step: Step, step_no: int, seq: Iterator[int]) -> list[WireChunk]:
    item_id = f"rs_{step_no}"
    item = {"type": "reasoning", "id": item_id, "summary": []}
    parts = chunk_text(step.reasoning, step.chunk_size)
    done = {**item, "summary": [{"type": "summary_text", "text": step.reasoning}]}
    return [
        _event("response.output_item.added", next(seq), output_index=0, item=item),
        *[
            _event(
                "response.reasoning_summary_text.delta",
                next(seq),
                item_id=item_id,
                output_index=0,
                summary_index=0,
                delta=part,
            )
            for part in parts
        ],
        _event("response.output_item.done", next(seq), output_index=0, item=done),
    ]


def responses_stream_events(step: Step, step_no: int, model: str) -> list[WireChunk]:
    seq = iter(range(10_000))
    out = [
        _event("response.created", next(seq), response=_response(step, step_no, model, "in_progress")),
        _event("response.in_progress", next(seq), response=_response(step, step_no, model, "in_progress")),
    ]
    index = 0
    if step.reasoning:
        out += _reasoning_events(step, step_no, seq)
        index += 1
    if step.text:
        out += _text_item_events(step, step_no, index, seq)
        index += 1
    for i in range(len(step.tool_calls)):
        out += _call_item_events(step, step_no, i, index, seq)
        index += 1
    out.append(_event("response.completed", next(seq), response=_response(step, step_no, model, "completed")))
    return out


def _text_item_events(step: Step, step_no: int, index: int, seq: Iterator[int]) -> list[WireChunk]:
    """One assistant message item: added, its text deltas, text done, item done."""
    item_id = f"msg_{step_no}"
    text = {"item_id": item_id, "output_index": index, "content_index": 0, "logprobs": []}
    return [
        _event(
            "response.output_item.added",
            next(seq),
            output_index=index,
            item=_message_item(step_no, "", "in_progress"),
        ),
        *(_event("response.output_text.delta", next(seq), delta=part, **text) for part in step.text_chunks()),
        _event("response.output_text.done", next(seq), text=step.text, **text),
        _event(
            "response.output_item.done",
            next(seq),
            output_index=index,
            item=_message_item(step_no, step.text, "completed"),
        ),
    ]


def _call_item_events(step: Step, step_no: int, i: int, index: int, seq: Iterator[int]) -> list[WireChunk]:
    """One function-call item: added, its argument deltas, arguments done, item done."""
    call = step.tool_calls[i]
    where = {"item_id": f"fc_{step_no}_{i}", "output_index": index}
    return [
        _event(
            "response.output_item.added",
            next(seq),
            output_index=index,
            item=_call_item(step, step_no, i, "in_progress"),
        ),
        *(
            _event("response.function_call_arguments.delta", next(seq), delta=part, **where)
            for part in split_arguments(call.arguments_json(), step.split_args)
        ),
        _event(
            "response.function_call_arguments.done",
            next(seq),
            name=call.name,
            arguments=call.arguments_json(),
            **where,
        ),
        _event(
            "response.output_item.done",
            next(seq),
            output_index=index,
            item=_call_item(step, step_no, i, "completed"),
        ),
    ]


def response_body(step: Step, step_no: int, model: str) -> dict[str, Any]:
    return _response(step, step_no, model, "completed")


def responses_stream_error(step: Step, step_no: int, model: str) -> WireChunk:
    response = {
        **_response(step, step_no, model, "in_progress"),
        "status": "failed",
        "error": {
            "code": step.error_code or "server_error",
            "message": step.error_message or "The model failed mid-answer.",
        },
    }
    return _event("response.failed", 9_999, response=response)
