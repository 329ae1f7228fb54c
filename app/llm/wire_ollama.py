"""Our messages and tools in Ollama's native /api/chat format.

Differences from OpenAI: tool-call `arguments` are JSON objects, and tool results name the
tool (`tool_name`) instead of a call id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.contracts.messages import Message
from app.contracts.provider import AttachmentInput, ModelRequest
from app.llm.wire_attachments import ollama_fields
from app.llm.wire_chat import chat_tool


def _arguments_object(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def native_messages(
    messages: tuple[Message, ...], inputs: Mapping[str, AttachmentInput] | None = None
) -> list[dict[str, Any]]:
    names_by_call: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            name = m.name or names_by_call.get(m.tool_call_id or "", "")
            out.append({"role": "tool", "content": m.content, "tool_name": name})
            continue
        item: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.role == "user" and m.attachments and inputs:
            item.update(ollama_fields(m, inputs))
        if m.tool_calls:
            names_by_call.update({c.id: c.name for c in m.tool_calls})
            item["tool_calls"] = [
                {"function": {"name": c.name, "arguments": _arguments_object(c.arguments)}}
                for c in m.tool_calls
            ]
        out.append(item)
    return out


def native_request(request: ModelRequest, context_length: int | None = None) -> dict[str, Any]:
    """`context_length`: the window the user set for this model (Ollama's `num_ctx`)."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": native_messages(request.messages, request.attachment_inputs),
        "stream": request.stream,
    }
    if request.tools:
        body["tools"] = [chat_tool(t) for t in request.tools]
    options: dict[str, Any] = {}
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        options["num_predict"] = request.max_output_tokens
    if context_length is not None:
        options["num_ctx"] = context_length
    if options:
        body["options"] = options
    return body
