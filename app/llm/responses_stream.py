"""Translate Responses API stream events into our normalised events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.contracts.messages import ToolCall
from app.contracts.provider import (
    ReasoningDelta,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    ToolCallStarted,
    UsageReport,
)
from app.llm import errors
from app.llm.errors import ErrorContext

if TYPE_CHECKING:
    from openai.types.responses import Response

_REASONING_DELTAS = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")


@dataclass
class _PartialCall:
    call_id: str
    name: str
    arguments: str = ""


def usage_report(response: Response) -> UsageReport | None:
    usage = response.usage
    if usage is None:
        return None
    return UsageReport(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)


class ResponsesAssembler:
    def __init__(self, ctx: ErrorContext) -> None:
        self._ctx = ctx
        self._calls: dict[int, _PartialCall] = {}
        self._started = 0
        self._ready = 0
        self.finish_reason: str | None = None

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def feed(self, event: Any) -> list[StreamEvent]:
        kind = getattr(event, "type", "")
        if kind == "response.output_text.delta":
            return [TextDelta(event.delta)] if event.delta else []
        if kind in _REASONING_DELTAS:
            return [ReasoningDelta(event.delta)] if event.delta else []
        if kind == "response.output_item.added" and event.item.type == "function_call":
            item = event.item
            ordinal = self._started
            self._started += 1
            self._calls[event.output_index] = _PartialCall(item.call_id, item.name, item.arguments or "")
            # `index` counts tool calls (as in Chat Completions), not output items.
            return [ToolCallStarted(index=ordinal, call_id=item.call_id, name=item.name)]
        if kind == "response.function_call_arguments.delta":
            if (call := self._calls.get(event.output_index)) is not None:
                call.arguments += event.delta
            return []
        if kind == "response.output_item.done" and event.item.type == "function_call":
            return [self._ready_call(event.output_index, event.item)]
        if kind in ("response.completed", "response.incomplete"):
            return self._complete(event.response)
        if kind == "response.failed":
            error = event.response.error
            raise errors.stream_failure(
                self._ctx, getattr(error, "code", None), getattr(error, "message", "")
            )
        if kind == "error":
            raise errors.stream_failure(self._ctx, event.code, event.message or "")
        return []

    def _ready_call(self, index: int, item: Any) -> ToolCallReady:
        partial = self._calls.pop(index, None)
        arguments = item.arguments or (partial.arguments if partial else "") or "{}"
        self._ready += 1
        return ToolCallReady(ToolCall(id=item.call_id, name=item.name, arguments=arguments))

    def _complete(self, response: Response) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if (usage := usage_report(response)) is not None:
            events.append(usage)
        incomplete = response.incomplete_details
        if response.status == "incomplete" and incomplete is not None:
            self.finish_reason = incomplete.reason or "incomplete"
        else:
            self.finish_reason = "tool_calls" if self._ready else "stop"
        return events

    def done(self) -> StreamDone:
        return StreamDone(finish_reason=self.finish_reason)


def response_events(response: Response) -> list[StreamEvent]:
    """A non-streamed response expressed as the same events a stream would give."""
    events: list[StreamEvent] = []
    calls = 0
    for item in response.output:
        if item.type == "message":
            text = "".join(part.text for part in item.content if part.type == "output_text")
            if text:
                events.append(TextDelta(text))
        elif item.type == "function_call":
            call = ToolCall(id=item.call_id, name=item.name, arguments=item.arguments or "{}")
            events += [ToolCallStarted(index=calls, call_id=call.id, name=call.name), ToolCallReady(call)]
            calls += 1
    if (usage := usage_report(response)) is not None:
        events.append(usage)
    events.append(StreamDone(finish_reason="tool_calls" if calls else "stop"))
    return events
