"""Folds the bus events of one turn into a `TraceRecord`.

Only names, ids, timings, counts and outcomes are read from the events; the text fields
(`user_text`, `text`, `arguments`, `output`, approval `title`/`detail`) are never copied.

Model calls are counted from the event order (the loop emits all tool calls of a model
response before running them): the turn starts one model call, and a finished batch of tool
results starts the next one unless the turn ends right there (the iteration limit).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from app.contracts.events import (
    AppEvent,
    ApprovalRequired,
    ApprovalResolved,
    Delta,
    ToolCallEvent,
    ToolResultEvent,
    TurnCancelled,
    TurnDone,
    TurnFailed,
    TurnStarted,
    UsageEvent,
)
from app.observability.trace_model import ApprovalOutcome, ToolCallTrace, ToolOutcome, TraceRecord, TurnStatus
from app.store.timeutil import utc_now_iso

Clock = Callable[[], float]


@dataclass
class _Tool:
    name: str
    duration_ms: float | None = None
    outcome: ToolOutcome = "cancelled"  # until its result arrives
    approval: ApprovalOutcome | None = None


class TurnFold:
    """The running state of one turn's trace."""

    def __init__(self, start: TurnStarted, api_mode: str | None, clock: Clock = time.perf_counter) -> None:
        self._clock = clock
        self._t0 = clock()
        self.chat_id = start.chat_id
        self.turn_id = start.turn_id
        self.provider_id = start.provider_id
        self.model = start.model
        self.api_mode = api_mode
        self.started_at = utc_now_iso()
        self.ttft_ms: float | None = None
        self.model_calls = 1
        self._next_call_pending = False
        self._open_calls: dict[str, int] = {}  # call_id -> index in _tools
        self._tools: list[_Tool] = []
        self._approval_call: dict[str, str] = {}  # approval_id -> call_id
        self._usage_seen = False
        self._usage_unknown = False
        self.input_tokens = 0
        self.output_tokens = 0

    def _elapsed_ms(self) -> float:
        return (self._clock() - self._t0) * 1000

    def feed(self, event: AppEvent) -> None:
        if self._next_call_pending and not isinstance(event, TurnDone | TurnCancelled):
            self.model_calls += 1
            self._next_call_pending = False
        if isinstance(event, Delta):
            if self.ttft_ms is None:
                self.ttft_ms = self._elapsed_ms()
        elif isinstance(event, ToolCallEvent):
            self._open_calls[event.call_id] = len(self._tools)
            self._tools.append(_Tool(event.name))
        elif isinstance(event, ApprovalRequired):
            self._approval_call[event.approval_id] = event.call_id
        elif isinstance(event, ApprovalResolved):
            self._on_approval(event.approval_id, event.decision)
        elif isinstance(event, ToolResultEvent):
            self._on_result(event)
        elif isinstance(event, UsageEvent):
            self._usage_seen = True
            if event.input_tokens is None or event.output_tokens is None:
                self._usage_unknown = True
            else:
                self.input_tokens += event.input_tokens
                self.output_tokens += event.output_tokens

    def _on_approval(self, approval_id: str, decision: ApprovalOutcome) -> None:
        call_id = self._approval_call.pop(approval_id, None)
        index = self._open_calls.get(call_id) if call_id is not None else None
        if index is not None:
            self._tools[index].approval = decision

    def _on_result(self, event: ToolResultEvent) -> None:
        index = self._open_calls.pop(event.call_id, None)
        if index is None:
            return
        tool = self._tools[index]
        tool.duration_ms = round(event.duration_ms, 3)
        denied = event.denied or tool.approval in ("deny", "cancelled")
        tool.outcome = "ok" if event.ok else ("denied" if denied else "error")
        if not self._open_calls:
            self._next_call_pending = True

    def finish(
        self,
        end: TurnDone | TurnFailed | TurnCancelled,
        cost: Callable[[int | None, int | None], float | None],
    ) -> TraceRecord:
        status: TurnStatus
        if isinstance(end, TurnDone):
            failed = any(t.outcome == "error" for t in self._tools)
            status, error_code = ("done_with_errors" if failed else "done"), None
        elif isinstance(end, TurnFailed):
            status, error_code = "failed", end.error.code
        else:
            status, error_code = "cancelled", None
        known = self._usage_seen and not self._usage_unknown
        tokens_in = self.input_tokens if known else None
        tokens_out = self.output_tokens if known else None
        return TraceRecord(
            id=uuid.uuid4().hex,
            chat_id=self.chat_id,
            turn_id=self.turn_id,
            provider_id=self.provider_id,
            api_mode=self.api_mode,
            model=self.model,
            status=status,
            error_code=error_code,
            started_at=self.started_at,
            ttft_ms=None if self.ttft_ms is None else round(self.ttft_ms, 3),
            total_ms=round(self._elapsed_ms(), 3),
            model_calls=self.model_calls,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cost=cost(tokens_in, tokens_out),
            tool_calls=tuple(
                ToolCallTrace(t.name, t.duration_ms, t.outcome, t.approval) for t in self._tools
            ),
        )
