"""Typed search configuration and results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Backend = Literal["duckduckgo", "searxng", "brave", "tavily"]
BACKENDS: tuple[Backend, ...] = ("duckduckgo", "searxng", "brave", "tavily")
KEYED: tuple[Backend, ...] = ("brave", "tavily")
DEFAULT_URLS: dict[Backend, str] = {
    "duckduckgo": "https://html.duckduckgo.com/html/",
    "searxng": "",  # the user's instance
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "tavily": "https://api.tavily.com/search",
}
MAX_RESULTS = 10


def key_name(backend: Backend) -> str:
    """The keyring entry of a keyed backend's API key."""
    return f"websearch:{backend}:api_key"


@dataclass(frozen=True)
class SearchConfig:
    backend: Backend
    url: str  # the endpoint actually used (setting, or the backend's default)
    api_key: str | None = None


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str
