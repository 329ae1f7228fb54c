"""Request/response models of the traces and usage routes (TypeScript is generated from them)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class ToolCallTraceView(_Model):
    name: str
    duration_ms: float | None
    outcome: Literal["ok", "error", "denied", "cancelled"]
    approval: Literal["deny", "once", "always", "cancelled"] | None


class TraceView(_Model):
    id: str
    chat_id: str
    turn_id: str
    provider_id: str
    api_mode: str | None
    model: str
    status: Literal["done", "done_with_errors", "failed", "cancelled"]
    error_code: str | None
    started_at: str
    ttft_ms: float | None
    total_ms: float
    model_calls: int
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    tool_calls: list[ToolCallTraceView]


class TracesQuery(_Model):
    limit: int = Field(default=20, ge=1, le=500)


class TraceList(_Model):
    traces: list[TraceView]


class TraceRef(_Model):
    id: str = Field(min_length=1, max_length=64)


class UsageRange(_Model):
    """Inclusive UTC days, YYYY-MM-DD."""

    first_day: str
    last_day: str

    @field_validator("first_day", "last_day")
    @classmethod
    def _check_day(cls, value: str) -> str:
        if not _DAY.fullmatch(value):
            raise ValueError("a day is written YYYY-MM-DD")
        return value


class UsageBucketView(_Model):
    day: str
    provider_id: str
    model: str
    turns: int
    input_tokens: int
    output_tokens: int
    cost: float | None


class UsageTotalsView(_Model):
    turns: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    unknown_cost_turns: int


class UsageSummary(_Model):
    buckets: list[UsageBucketView]
    totals: UsageTotalsView
    slowest: list[TraceView]
    most_expensive: list[TraceView]
