"""OpenAI-compatible Chat Completions provider (OpenAI, LM Studio, vLLM, DeepSeek, Ollama /v1 …)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.llm.base import ModelRequest, StreamEvent
from app.llm.chat_stream import ChatStreamAssembler, completion_events
from app.llm.errors import ErrorContext
from app.llm.openai_provider import Assembler, OpenAIProvider, as_is
from app.llm.wire_chat import chat_request

if TYPE_CHECKING:
    from openai import AsyncOpenAI


class ChatCompletionsProvider(OpenAIProvider):
    async def _create(self, client: AsyncOpenAI, request: ModelRequest, *, stream: bool) -> Any:
        # `messages=[]` satisfies the SDK's signature; the real list goes as-is in extra_body.
        kwargs = {"messages": [], **as_is(chat_request(request), "messages", "tools")}
        if not stream:
            return await client.chat.completions.create(**kwargs)
        return await client.chat.completions.create(
            **kwargs, stream=True, stream_options={"include_usage": True}
        )

    def _whole(self, result: Any) -> Sequence[StreamEvent]:
        return completion_events(result)

    def _assembler(self, ctx: ErrorContext) -> Assembler:
        return ChatStreamAssembler()
