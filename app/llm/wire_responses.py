"""Our messages and tools as Responses API input items.

Stateless on purpose (Ollama has no `previous_response_id`): every turn sends the whole
conversation, tool calls as `function_call` items and results as `function_call_output`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.contracts.messages import Message, ToolSpec
from app.contracts.provider import AttachmentInput, ModelRequest
from app.llm.wire_attachments import responses_content


def input_items(
    message: Message, inputs: Mapping[str, AttachmentInput] | None = None
) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {"type": "function_call_output", "call_id": message.tool_call_id or "", "output": message.content}
        ]
    items: list[dict[str, Any]] = []
    if message.role == "user" and message.attachments and inputs:
        return [{"role": "user", "content": responses_content(message, inputs)}]
    if message.content or not message.tool_calls:
        items.append({"role": message.role, "content": message.content})
    items += [
        {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
        for c in message.tool_calls
    ]
    return items


def responses_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
    }


def responses_request(request: ModelRequest) -> dict[str, Any]:
    """Keyword arguments for `responses.create` (without the stream flag)."""
    kwargs: dict[str, Any] = {
        "model": request.model,
        "input": [item for m in request.messages for item in input_items(m, request.attachment_inputs)],
    }
    if request.tools:
        kwargs["tools"] = [responses_tool(t) for t in request.tools]
        kwargs["tool_choice"] = "auto"
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        kwargs["max_output_tokens"] = request.max_output_tokens
    return kwargs
