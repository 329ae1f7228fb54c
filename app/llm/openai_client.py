"""Lazy AsyncOpenAI construction: importing openai costs ~0.4 s, so only a real call pays it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.llm import errors
from app.llm.base import ModelInfo
from app.llm.errors import ErrorContext

if TYPE_CHECKING:
    from openai import AsyncOpenAI


class LazyOpenAIClient:
    def __init__(self, base_url: str, api_key: str, timeout_s: float) -> None:
        self._base_url = base_url
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._client: AsyncOpenAI | None = None

    def get(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI

            # max_retries=0: retries are ours (app.llm.retry), so only pre-first-token failures
            # are retried and Retry-After is honoured the way we choose.
            self._client = AsyncOpenAI(
                base_url=self._base_url, api_key=self._api_key, timeout=self._timeout_s, max_retries=0
            )
        return self._client

    async def list_models(self, ctx: ErrorContext) -> list[ModelInfo]:
        """`GET /models`; OpenAI-compatible servers say nothing about capabilities (None)."""
        import openai

        if not self._api_key:
            raise errors.no_api_key(ctx)
        try:
            return [ModelInfo(id=m.id) async for m in self.get().models.list()]
        except openai.APIError as exc:
            raise errors.from_openai(exc, ctx, after_headers=False) from errors.safe_cause(exc)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
