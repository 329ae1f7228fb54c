"""Ollama provider: chat over its OpenAI-compatible `/v1` (default) or native `/api/chat`,
models discovered natively with capabilities. No API key needed."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from app.contracts.provider import ModelInfo, ModelRequest, ProviderConfig, StreamEvent
from app.llm.chat_completions import ChatCompletionsProvider
from app.llm.errors import ErrorContext
from app.llm.http_client import LazyHttpClient
from app.llm.limits import with_limits
from app.llm.ollama_discovery import discover_models
from app.llm.ollama_native import native_chat
from app.llm.retry import RetryPolicy, retrying

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"


def ollama_root(base_url: str) -> str:
    """Accept the host root or its /v1 URL; native calls need the root."""
    root = (base_url or DEFAULT_OLLAMA_URL).rstrip("/")
    if "://" not in root:  # "localhost:11434" as people often type it
        root = "http://" + root
    return root[: -len("/v1")] if root.endswith("/v1") else root


class OllamaProvider:
    def __init__(self, config: ProviderConfig, *, retry: RetryPolicy | None = None) -> None:
        self.config = config
        self._root = ollama_root(config.base_url)
        self._retry = retry or RetryPolicy(max_retries=config.max_retries)
        self._http = LazyHttpClient(self._root, config.timeout_s)
        self._compat = ChatCompletionsProvider(
            config, retry=self._retry, base_url=self._root + "/v1", ollama=True
        )

    def _ctx(self, model: str | None = None) -> ErrorContext:
        return ErrorContext.for_config(self.config, model, ollama=True, base_url=self._root)

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        events: AsyncGenerator[StreamEvent, None]
        if self.config.ollama_native:
            ctx = self._ctx(request.model).at("/api/chat")
            request = with_limits(request, self.config)
            events = retrying(lambda: native_chat(self._http.get(), request, ctx, self.config), self._retry)
        else:
            events = self._compat.stream(request)
        async with aclosing(events):
            async for event in events:
                yield event

    async def list_models(self) -> list[ModelInfo]:
        return await discover_models(self._http.get(), self._ctx())

    async def aclose(self) -> None:
        await self._compat.aclose()
        await self._http.aclose()
