"""Our messages and tools in the Chat Completions wire format (also used by Ollama's /v1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.contracts.messages import Message, ToolSpec
from app.contracts.provider import AttachmentInput, ModelRequest
from app.llm.wire_attachments import chat_content


def chat_message(message: Message, inputs: Mapping[str, AttachmentInput] | None = None) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            # Content may be absent next to tool calls; some servers reject "" there.
            "content": message.content or None,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in message.tool_calls
            ],
        }
    if message.role == "user" and message.attachments and inputs:
        return {"role": "user", "content": chat_content(message, inputs)}
    return {"role": message.role, "content": message.content}


def chat_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


def chat_request(request: ModelRequest) -> dict[str, Any]:
    """Keyword arguments for `chat.completions.create` (without the stream flags)."""
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": [chat_message(m, request.attachment_inputs) for m in request.messages],
    }
    if request.tools:
        kwargs["tools"] = [chat_tool(t) for t in request.tools]
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    return kwargs
