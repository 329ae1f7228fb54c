"""Assemble Chat Completions chunks into our normalised events.

Tool calls arrive as fragments keyed by `index`; they are announced when their id and name
are known and released whole (`ToolCallReady`) when the choice finishes.
"""

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

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from openai.types.completion_usage import CompletionUsage


@dataclass
class _PartialCall:
    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""
    announced: bool = False

    def ready(self) -> ToolCallReady:
        return ToolCallReady(
            ToolCall(id=self.id or f"call_{self.index}", name=self.name, arguments=self.arguments or "{}")
        )


def usage_report(usage: CompletionUsage | None) -> UsageReport | None:
    if usage is None:
        return None
    return UsageReport(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens)


def _reasoning(delta: Any) -> str | None:
    # Not in the OpenAI schema: DeepSeek/vLLM send `reasoning_content`, Ollama `reasoning`.
    value = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
    return value if isinstance(value, str) and value else None


class ChatStreamAssembler:
    def __init__(self) -> None:
        self._calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self._released = False

    def feed(self, chunk: ChatCompletionChunk) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if (usage := usage_report(chunk.usage)) is not None:
            events.append(usage)
        for choice in chunk.choices[:1]:
            delta = choice.delta
            if (reasoning := _reasoning(delta)) is not None:
                events.append(ReasoningDelta(reasoning))
            if delta.content:
                events.append(TextDelta(delta.content))
            for fragment in delta.tool_calls or ():
                events += self._merge(fragment)
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
                events += self._release()
        return events

    def _merge(self, fragment: Any) -> list[StreamEvent]:
        index = fragment.index if fragment.index is not None else len(self._calls)
        call = self._calls.setdefault(index, _PartialCall(index))
        call.id = fragment.id or call.id
        fn = fragment.function
        if fn is not None:
            if fn.name and fn.name != call.name:
                call.name = fn.name if not call.name else call.name + fn.name
            call.arguments += fn.arguments or ""
        if not call.announced and call.name:
            call.announced = True
            return [ToolCallStarted(index=index, call_id=call.id or f"call_{index}", name=call.name)]
        return []

    def _release(self) -> list[StreamEvent]:
        if self._released:
            return []
        self._released = True
        return [self._calls[i].ready() for i in sorted(self._calls)]

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def done(self) -> StreamDone:
        return StreamDone(finish_reason=self.finish_reason)


def completion_events(completion: ChatCompletion) -> list[StreamEvent]:
    """A non-streamed answer expressed as the same events a stream would give."""
    events: list[StreamEvent] = []
    finish: str | None = None
    for choice in completion.choices[:1]:
        message = choice.message
        finish = choice.finish_reason
        if (reasoning := _reasoning(message)) is not None:
            events.append(ReasoningDelta(reasoning))
        if message.content:
            events.append(TextDelta(message.content))
        for i, tc in enumerate(message.tool_calls or ()):
            fn = getattr(tc, "function", None)
            if fn is None:  # custom (non-function) tools are not offered by us
                continue
            call = ToolCall(id=tc.id or f"call_{i}", name=fn.name, arguments=fn.arguments or "{}")
            events += [ToolCallStarted(index=i, call_id=call.id, name=call.name), ToolCallReady(call)]
    if (usage := usage_report(completion.usage)) is not None:
        events.append(usage)
    events.append(StreamDone(finish_reason=finish))
    return events
