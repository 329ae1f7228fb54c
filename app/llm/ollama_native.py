"""Ollama's native `/api/chat` (NDJSON streaming) as normalised events.

Native tool calls arrive whole (arguments as a JSON object) and usually without ids, so ids
are made up per answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from app.contracts.messages import ToolCall
from app.contracts.provider import (
    ModelRequest,
    ProviderConfig,
    ProviderError,
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
from app.llm.json_body import encode_json
from app.llm.wire_ollama import native_request

if TYPE_CHECKING:
    import httpx2


class NativeAssembler:
    def __init__(self, ctx: ErrorContext) -> None:
        self._ctx = ctx
        self._calls = 0
        self.finish_reason: str | None = None

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        if "error" in chunk:
            raise errors.stream_failure(self._ctx, None, str(chunk["error"]))
        message = chunk.get("message") or {}
        events: list[StreamEvent] = []
        if thinking := message.get("thinking"):
            events.append(ReasoningDelta(str(thinking)))
        if content := message.get("content"):
            events.append(TextDelta(str(content)))
        for raw in message.get("tool_calls") or ():
            events += self._tool_call(raw)
        if chunk.get("done"):
            events.append(
                UsageReport(
                    input_tokens=chunk.get("prompt_eval_count"), output_tokens=chunk.get("eval_count")
                )
            )
            reason = chunk.get("done_reason") or "stop"
            self.finish_reason = "tool_calls" if self._calls and reason == "stop" else str(reason)
        return events

    def _tool_call(self, raw: dict[str, Any]) -> list[StreamEvent]:
        fn = raw.get("function") or {}
        args = fn.get("arguments", {})
        index = self._calls
        self._calls += 1
        call = ToolCall(
            id=str(raw.get("id") or f"call_{index}"),
            name=str(fn.get("name", "")),
            arguments=args if isinstance(args, str) else json.dumps(args),
        )
        return [ToolCallStarted(index=index, call_id=call.id, name=call.name), ToolCallReady(call)]

    def done(self) -> StreamDone:
        return StreamDone(finish_reason=self.finish_reason)


async def _status_error(response: httpx2.Response, ctx: ErrorContext) -> ProviderError:
    raw = (await response.aread()).decode("utf-8", "replace")
    try:
        body = json.loads(raw)
        message = str(body.get("error", raw)) if isinstance(body, dict) else raw
    except json.JSONDecodeError:
        message = raw
    retry_after = errors.retry_after_seconds(response.headers)
    return errors.from_status(ctx, response.status_code, message, None, retry_after)


async def native_chat(
    http: httpx2.AsyncClient, request: ModelRequest, ctx: ErrorContext, config: ProviderConfig
) -> AsyncGenerator[StreamEvent, None]:
    """One attempt at `/api/chat`; streamed or not, it yields the same events. `config` gives
    the model's context length (`num_ctx`) and the first-token timeout."""
    import asyncio

    import httpx2

    assembler = NativeAssembler(ctx)
    headers_seen = False
    try:
        # Leaving the `async with` (also by cancellation) closes the connection.
        # Serialised like the OpenAI bodies: image base64 spliced in, not re-encoded.
        body = encode_json(native_request(request, config.limits_for(request.model).context_length))
        headers = {"Content-Type": "application/json"}
        async with http.stream("POST", "/api/chat", content=body, headers=headers) as response:
            headers_seen = True
            if response.status_code >= 400:
                raise await _status_error(response, ctx)
            limit = config.first_token_timeout_s
            async with asyncio.timeout(limit) as guard:
                async for line in response.aiter_lines():
                    if line.strip():
                        events = assembler.feed(_parse_line(line, ctx))
                        if events and guard.when() is not None:
                            guard.reschedule(None)  # disarmed before anything reaches the consumer
                        for event in events:
                            yield event
    except TimeoutError:
        raise errors.first_token_timeout(ctx, config.first_token_timeout_s or 0) from None
    except httpx2.TimeoutException as exc:
        raise errors.connection_failed(ctx, timeout=True, after_headers=headers_seen) from exc
    except httpx2.TransportError as exc:
        raise errors.connection_failed(ctx, timeout=False, after_headers=headers_seen) from exc
    if not assembler.finished:
        raise errors.disconnected(ctx)
    yield assembler.done()


def _parse_line(line: str, ctx: ErrorContext) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise errors.stream_failure(ctx, None, "Ollama sent a malformed stream line") from exc
    return value if isinstance(value, dict) else {}
