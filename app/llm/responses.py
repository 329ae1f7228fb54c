"""OpenAI Responses API provider, used statelessly (full input items every turn)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.contracts.provider import ModelRequest, StreamEvent
from app.llm.errors import ErrorContext
from app.llm.json_body import has_blobs
from app.llm.openai_provider import Assembler, OpenAIProvider, as_is, post_json
from app.llm.responses_stream import ResponsesAssembler, response_events
from app.llm.wire_responses import responses_request

if TYPE_CHECKING:
    from openai import AsyncOpenAI


class ResponsesProvider(OpenAIProvider):
    _path = "/responses"

    async def _create(self, client: AsyncOpenAI, request: ModelRequest, *, stream: bool) -> Any:
        kwargs = responses_request(request)
        if stream:
            kwargs["stream"] = True
        if has_blobs(kwargs):
            # Images: the body is serialised once with the base64 spliced in (app/llm/json_body.py).
            from openai import AsyncStream
            from openai.types.responses import Response, ResponseStreamEvent

            return await post_json(
                client, "/responses", kwargs, cast_to=Response, stream_cls=AsyncStream[ResponseStreamEvent]
            )
        return await client.responses.create(**as_is(kwargs, "input", "tools"))

    def _whole(self, result: Any) -> Sequence[StreamEvent]:
        return response_events(result)

    def _assembler(self, ctx: ErrorContext) -> Assembler:
        return ResponsesAssembler(ctx)
