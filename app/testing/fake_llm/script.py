"""Scenario steps for the fake LLM server. A script is data: a list of steps, one per model
request, parsed from JSON (in-process or over the control endpoint)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ScriptedToolCall(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None  # default: call_<step>_<index>

    def arguments_json(self) -> str:
        return json.dumps(self.arguments)


class ScriptedUsage(BaseModel):
    model_config = ConfigDict(frozen=True)

    input: int = 0
    output: int = 0


class Step(BaseModel):
    """How the server answers one model request.

    `error` makes the request fail with that HTTP status (`retry_after` adds the header,
    `error_code` sets the OpenAI error `code`, e.g. "context_length_exceeded").
    `disconnect_after` aborts the connection after that many content chunks without finishing.
    `fail_after` instead reports an in-band stream error after that many content chunks (chat:
    an SSE `{"error": ...}` chunk; responses: `response.failed`; Ollama: an `{"error"}` line),
    using `error_message` / `error_code`.
    `raw_body` answers the request with exactly these bytes (status 200, `raw_content_type`):
    an HTML login page or a garbage event stream, as a misconfigured proxy would send.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    split_args: bool = False
    chunk_size: int = Field(default=4, ge=1)
    delay_s: float = Field(default=0.0, ge=0.0)
    usage: ScriptedUsage | None = None
    error: int | None = None
    error_message: str | None = None
    error_code: str | None = None
    retry_after: float | None = None
    disconnect_after: int | None = Field(default=None, ge=0)
    fail_after: int | None = Field(default=None, ge=0)
    raw_body: str | None = None
    hang_s: float = Field(default=0.0, ge=0.0)  # silence before the status line (streamed replies)
    raw_content_type: str = "text/html; charset=utf-8"

    def text_chunks(self) -> list[str]:
        return chunk_text(self.text, self.chunk_size)

    def usage_or_default(self) -> ScriptedUsage:
        # Deterministic stand-in so clients always see usage numbers when they ask for them.
        if self.usage is not None:
            return self.usage
        return ScriptedUsage(input=10, output=max(1, len(self.text_chunks())))

    def call_id(self, step_no: int, index: int) -> str:
        call = self.tool_calls[index]
        return call.id or f"call_{step_no}_{index}"


def chunk_text(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def split_arguments(args_json: str, split: bool) -> list[str]:
    """Split a JSON argument string into ~3 fragments (mid-token on purpose)."""
    if not split or len(args_json) < 3:
        return [args_json]
    third = max(1, len(args_json) // 3)
    return [args_json[:third], args_json[third : 2 * third], args_json[2 * third :]]


def cut_with_error(chunks: list[WireChunk], keep_content: int, error: WireChunk) -> list[WireChunk]:
    """Keep the preamble and the first `keep_content` content chunks, then end with `error`."""
    out: list[WireChunk] = []
    seen = 0
    for chunk in chunks:
        if chunk.content:
            if seen >= keep_content:
                break
            seen += 1
        out.append(chunk)
    return [*out, error]


def parse_steps(data: object) -> list[Step]:
    """Accept a list of steps or {"steps": [...]} (the script file / control body shape)."""
    if isinstance(data, dict):
        data = data.get("steps", [])
    if not isinstance(data, list):
        raise ValueError("a script is a list of steps or {'steps': [...]}")
    return [Step.model_validate(item) for item in data]


class WireChunk(BaseModel):
    """One piece of a streamed answer. `content` marks chunks that carry answer data (text,
    reasoning or tool-call fragments); `disconnect_after` counts only those."""

    model_config = ConfigDict(frozen=True)

    data: bytes
    content: bool = False
