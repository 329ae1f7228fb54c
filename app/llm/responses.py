"""OpenAI Responses API provider, used statelessly (full input items every turn)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from app.llm import errors
from app.llm.base import ModelInfo, ModelRequest, ProviderConfig, ProviderError, StreamEvent
from app.llm.errors import ErrorContext
from app.llm.openai_client import LazyOpenAIClient, effective_api_key, explain_keyless
from app.llm.responses_stream import ResponsesAssembler, response_events
from app.llm.retry import RetryPolicy, retrying
from app.llm.wire_responses import responses_request


class ResponsesProvider:
    def __init__(self, config: ProviderConfig, *, retry: RetryPolicy | None = None) -> None:
        self.config = config
        self._base_url = config.base_url.rstrip("/")
        self._api_key = effective_api_key(config.api_key, self._base_url)
        self._retry = retry or RetryPolicy(max_retries=config.max_retries)
        self._client = LazyOpenAIClient(self._base_url, self._api_key, config.timeout_s)

    def _ctx(self, model: str | None = None) -> ErrorContext:
        return ErrorContext.for_config(self.config, model, base_url=self._base_url)

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
        kwargs = responses_request(request)
        if not request.stream:
            try:
                response = await client.responses.create(**kwargs)
            except openai.APIError as exc:
                raise errors.from_openai(exc, ctx, after_headers=False) from errors.safe_cause(exc)
            for event in response_events(response):
                yield event
            return
        try:
            sdk_events = await client.responses.create(**kwargs, stream=True)
        except openai.APIError as exc:
            raise errors.from_openai(exc, ctx, after_headers=False) from errors.safe_cause(exc)
        assembler = ResponsesAssembler(ctx)
        try:
            async for sdk_event in sdk_events:
                for event in assembler.feed(sdk_event):
                    yield event
        except openai.APIError as exc:
            raise errors.from_openai(exc, ctx, after_headers=True) from errors.safe_cause(exc)
        finally:
            # Also on cancellation: drop the HTTP connection so the server stops generating.
            await sdk_events.close()
        if not assembler.finished:
            raise errors.disconnected(ctx)
        yield assembler.done()

    async def list_models(self) -> list[ModelInfo]:
        return await self._client.list_models(self._ctx())

    async def aclose(self) -> None:
        await self._client.aclose()
