"""Lazy httpx2 client for Ollama's native API (httpx2 is imported only when first used)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx2


class LazyHttpClient:
    def __init__(self, base_url: str, timeout_s: float) -> None:
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._client: httpx2.AsyncClient | None = None

    def get(self) -> httpx2.AsyncClient:
        if self._client is None:
            import httpx2

            self._client = httpx2.AsyncClient(base_url=self._base_url, timeout=self._timeout_s)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
