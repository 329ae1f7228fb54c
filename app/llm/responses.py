"""OpenAI Responses API provider, used statelessly (full input items every turn)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.llm.base import ModelRequest, StreamEvent
from app.llm.errors import ErrorContext
from app.llm.openai_provider import Assembler, OpenAIProvider, as_is
from app.llm.responses_stream import ResponsesAssembler, response_events
from app.llm.wire_responses import responses_request

if TYPE_CHECKING:
    from openai import AsyncOpenAI


class ResponsesProvider(OpenAIProvider):
    async def _create(self, client: AsyncOpenAI, request: ModelRequest, *, stream: bool) -> Any:
        kwargs = as_is(responses_request(request), "input", "tools")
        if not stream:
            return await client.responses.create(**kwargs)
        return await client.responses.create(**kwargs, stream=True)

    def _whole(self, result: Any) -> Sequence[StreamEvent]:
        return response_events(result)

    def _assembler(self, ctx: ErrorContext) -> Assembler:
        return ResponsesAssembler(ctx)
