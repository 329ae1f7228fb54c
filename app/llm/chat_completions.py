"""OpenAI-compatible Chat Completions provider (OpenAI, LM Studio, vLLM, DeepSeek, Ollama /v1 …)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.contracts.provider import ModelRequest, ProviderError, StreamEvent
from app.llm.chat_stream import ChatStreamAssembler, completion_events
from app.llm.errors import ErrorContext
from app.llm.json_body import has_blobs
from app.llm.openai_provider import Assembler, OpenAIProvider, as_is, post_json
from app.llm.wire_chat import chat_request

if TYPE_CHECKING:
    from openai import AsyncOpenAI


class ChatCompletionsProvider(OpenAIProvider):
    _path = "/chat/completions"

    def _adapt(self, err: ProviderError, request: ModelRequest, *, stream: bool) -> str | None:
        return self._learned.adapt(err, request.messages, tools=bool(request.tools), stream=stream)

    def _adapt_empty_stream(self, request: ModelRequest) -> bool:
        return self._learned.adapt_empty_stream(tools=bool(request.tools))

    def _streams(self, request: ModelRequest) -> bool:
        return self._learned.streams(stream=request.stream, tools=bool(request.tools))

    async def _create(self, client: AsyncOpenAI, request: ModelRequest, *, stream: bool) -> Any:
        kwargs = chat_request(request, empty_tool_content=self._learned.empty_tool_content)
        if stream:
            kwargs.update(stream=True, stream_options={"include_usage": True})
        if has_blobs(kwargs):
            # Images: the body is serialised once with the base64 spliced in (app/llm/json_body.py).
            from openai import AsyncStream
            from openai.types.chat import ChatCompletion, ChatCompletionChunk

            return await post_json(
                client,
                "/chat/completions",
                kwargs,
                cast_to=ChatCompletion,
                stream_cls=AsyncStream[ChatCompletionChunk],
            )
        # `messages=[]` satisfies the SDK's signature; the real list goes as-is in extra_body.
        return await client.chat.completions.create(**{"messages": [], **as_is(kwargs, "messages", "tools")})

    def _whole(self, result: Any) -> Sequence[StreamEvent]:
        return completion_events(result)

    def _assembler(self, ctx: ErrorContext) -> Assembler:
        return ChatStreamAssembler()
