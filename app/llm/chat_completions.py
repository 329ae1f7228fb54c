"""OpenAI-compatible Chat Completions provider (OpenAI, LM Studio, vLLM, DeepSeek, Ollama /v1 …)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from app.llm import errors
from app.llm.base import ModelInfo, ModelRequest, ProviderConfig, ProviderError, StreamEvent
from app.llm.chat_stream import ChatStreamAssembler, completion_events
from app.llm.errors import ErrorContext
from app.llm.openai_client import LazyOpenAIClient, effective_api_key, explain_keyless
from app.llm.retry import RetryPolicy, retrying
from app.llm.wire_chat import chat_request


class ChatCompletionsProvider:
    """`base_url` is the OpenAI-compatible root (ending in /v1). `ollama=True` words errors
    for Ollama and needs no key (its /v1 ignores the key, but the SDK wants one)."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        retry: RetryPolicy | None = None,
        base_url: str | None = None,
        ollama: bool = False,
    ) -> None:
        self.config = config
        self._base_url = (base_url or config.base_url).rstrip("/")
        self._ollama = ollama
        if ollama and not config.api_key:
            self._api_key = "ollama"  # Ollama's /v1 requires some key and ignores it
        else:
            self._api_key = effective_api_key(config.api_key, self._base_url)
        self._retry = retry or RetryPolicy(max_retries=config.max_retries)
        self._client = LazyOpenAIClient(self._base_url, self._api_key, config.timeout_s)

    def _ctx(self, model: str | None = None) -> ErrorContext:
        return ErrorContext.for_config(self.config, model, ollama=self._ollama, base_url=self._base_url)

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        if not self._api_key:
            raise errors.no_api_key(self._ctx(request.model))
        try:
            async with aclosing(retrying(lambda: self._attempt(request), self._retry)) as events:
                async for event in events:
                    yield event
        except ProviderError as exc:
            raise explain_keyless(exc, self._api_key, self._ctx(request.model)) from exc.__cause__

    async def _attempt(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        import openai

        ctx = self._ctx(request.model)
        client = self._client.get()
        kwargs = chat_request(request)
        if not request.stream:
            try:
                completion = await client.chat.completions.create(**kwargs)
            except openai.APIError as exc:
                raise errors.from_openai(exc, ctx, after_headers=False) from errors.safe_cause(exc)
            for event in completion_events(completion):
                yield event
            return
        try:
            chunks = await client.chat.completions.create(
                **kwargs, stream=True, stream_options={"include_usage": True}
            )
        except openai.APIError as exc:
            raise errors.from_openai(exc, ctx, after_headers=False) from errors.safe_cause(exc)
        assembler = ChatStreamAssembler()
        try:
            async for chunk in chunks:
                for event in assembler.feed(chunk):
                    yield event
        except openai.APIError as exc:
            raise errors.from_openai(exc, ctx, after_headers=True) from errors.safe_cause(exc)
        finally:
            # Also on cancellation: drop the HTTP connection so the server stops generating.
            await chunks.close()
        if not assembler.finished:
            # The body ended cleanly but without a finish_reason: never pass that off as an answer.
            raise errors.disconnected(ctx)
        yield assembler.done()

    async def list_models(self) -> list[ModelInfo]:
        return await self._client.list_models(self._ctx())

    async def aclose(self) -> None:
        await self._client.aclose()
