"""Conversation messages: the one shape shared by the loop, the store and the providers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """One function call requested by the model; `arguments` is the raw JSON text."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str = "{}"


def _empty_schema() -> dict[str, object]:
    return {"type": "object", "properties": {}}


class ToolSpec(BaseModel):
    """A tool as offered to the model (OpenAI function-tool shape)."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, object] = Field(default_factory=_empty_schema)


class Message(BaseModel):
    """A chat message. Tool messages carry `tool_call_id` and the tool's `name`."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
