"""Our messages and tools in the Chat Completions wire format (also used by Ollama's /v1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.contracts.messages import Message, ToolSpec
from app.contracts.provider import AttachmentInput, ModelRequest
from app.llm.wire_attachments import chat_content


def chat_message(
    message: Message, inputs: Mapping[str, AttachmentInput] | None = None, *, empty_tool_content: bool = False
) -> dict[str, Any]:
    """`empty_tool_content`: "" instead of null next to tool calls (app/llm/server_quirks.py)."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            # OpenAI's form is null; llama-cpp-python refuses null (and a missing key) and takes "".
            "content": message.content or ("" if empty_tool_content else None),
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


def chat_request(request: ModelRequest, *, empty_tool_content: bool = False) -> dict[str, Any]:
    """Keyword arguments for `chat.completions.create` (without the stream flags)."""
    inputs = request.attachment_inputs
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": [
            chat_message(m, inputs, empty_tool_content=empty_tool_content) for m in request.messages
        ],
    }
    if request.tools:
        kwargs["tools"] = [chat_tool(t) for t in request.tools]
        # Said, not implied: OpenAI reads a missing tool_choice as "auto", llama-cpp-python as "none".
        kwargs["tool_choice"] = "auto"
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        # `max_tokens`: what llama.cpp, Ollama, vLLM and DeepSeek read (decision 302).
        kwargs["max_tokens"] = request.max_output_tokens
    return kwargs
