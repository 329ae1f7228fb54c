"""One request per backend, and its answer as `SearchResult`s."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from app.websearch.ddg_html import parse_results
from app.websearch.model import MAX_RESULTS, SearchConfig, SearchResult

if TYPE_CHECKING:
    import httpx2

USER_AGENT = "Mozilla/5.0 (compatible; CashCode/0.1; +local desktop agent)"


class SearchFailed(Exception):
    """The backend could not answer (the message says what to do)."""


async def search(
    client: httpx2.AsyncClient, config: SearchConfig, query: str, count: int
) -> list[SearchResult]:
    count = max(1, min(count, MAX_RESULTS))
    if config.backend == "duckduckgo":
        response = await client.post(config.url, data={"q": query}, headers={"User-Agent": USER_AGENT})
        _check(response, config)
        return parse_results(response.text)[:count]
    if config.backend == "searxng":
        response = await client.get(_searx_url(config.url), params={"q": query, "format": "json"})
        _check(response, config)
        items = _json(response, config).get("results", [])
        return _pick(items, "title", "url", "content", count)
    if not config.api_key:
        raise SearchFailed(f"No API key for {config.backend}: add it in Settings → Web search.")
    if config.backend == "brave":
        headers = {"X-Subscription-Token": config.api_key, "Accept": "application/json"}
        response = await client.get(config.url, params={"q": query, "count": count}, headers=headers)
        _check(response, config)
        items = _json(response, config).get("web", {}).get("results", [])
        return _pick(items, "title", "url", "description", count)
    headers = {"Authorization": f"Bearer {config.api_key}"}
    response = await client.post(config.url, json={"query": query, "max_results": count}, headers=headers)
    _check(response, config)
    return _pick(_json(response, config).get("results", []), "title", "url", "content", count)


def _searx_url(base: str) -> str:
    if not base:
        raise SearchFailed("No SearXNG address: enter your instance's URL in Settings → Web search.")
    return base.rstrip("/") + "/search" if not base.rstrip("/").endswith("/search") else base


def _check(response: httpx2.Response, config: SearchConfig) -> None:
    if response.status_code in (401, 403):
        raise SearchFailed(
            f"{config.backend} refused the request (HTTP {response.status_code}): check the API key"
            " in Settings → Web search."
        )
    if response.status_code == 429:
        raise SearchFailed(f"{config.backend} is rate-limiting searches (HTTP 429); try again later.")
    if response.status_code >= 400:
        raise SearchFailed(f"{config.backend} answered HTTP {response.status_code}.")


def _json(response: httpx2.Response, config: SearchConfig) -> dict[str, Any]:
    try:
        value = json.loads(response.text)
    except json.JSONDecodeError as exc:
        raise SearchFailed(f"{config.backend} did not return JSON (is the address right?).") from exc
    return value if isinstance(value, dict) else {}


def _pick(items: Any, title: str, url: str, snippet: str, count: int) -> list[SearchResult]:
    out: list[SearchResult] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get(url), str) and item.get(url):
            out.append(
                SearchResult(
                    title=" ".join(str(item.get(title) or item[url]).split()),
                    url=item[url],
                    snippet=" ".join(str(item.get(snippet) or "").split()),
                )
            )
        if len(out) >= count:
            break
    return out
