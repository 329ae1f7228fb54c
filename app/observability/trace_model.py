"""What a trace is: facts about one turn, never its content (no prompt, reply, tool arguments,
approval text or tool result)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# done_with_errors: the model answered, but at least one tool call failed (not: was denied).
TurnStatus = Literal["done", "done_with_errors", "failed", "cancelled"]
ToolOutcome = Literal["ok", "error", "denied", "cancelled"]
ApprovalOutcome = Literal["deny", "once", "always", "cancelled"]


@dataclass(frozen=True)
class ToolCallTrace:
    name: str
    duration_ms: float | None  # None: the call never finished (turn cancelled)
    outcome: ToolOutcome
    approval: ApprovalOutcome | None = None  # None: no question was asked


@dataclass(frozen=True)
class TraceRecord:
    id: str
    chat_id: str
    turn_id: str
    provider_id: str
    api_mode: str | None  # chat_completions | responses | ollama (None: provider unknown)
    model: str
    status: TurnStatus
    error_code: str | None
    started_at: str  # UTC ISO 8601
    ttft_ms: float | None  # None: no token arrived
    total_ms: float
    model_calls: int
    input_tokens: int | None  # None: the provider reported no usage
    output_tokens: int | None
    cost: float | None  # None: usage or price unknown
    tool_calls: tuple[ToolCallTrace, ...] = field(default_factory=tuple)
