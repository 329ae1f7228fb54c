"""The `web_search` tool. It asks once per search host, like `web_fetch` (grant kind
`web_host`); autonomous mode runs it without asking."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from app.contracts.tool_args import req_str
from app.contracts.tools import (
    ApprovalInfo,
    GrantKey,
    PreparedCall,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    summary,
)
from app.tools.guarded_transport import GuardRefused, guarded_transport
from app.tools.ssrf import Resolver, system_resolve
from app.websearch.backends import SearchFailed, search
from app.websearch.model import MAX_RESULTS, SearchConfig, SearchResult
from app.websearch.tool_spec import WEB_SEARCH

TIMEOUT_S = 15.0
MAX_QUERY = 400


class WebSearchTool(Tool):
    name = WEB_SEARCH.name
    description = WEB_SEARCH.description
    parameters = WEB_SEARCH.parameters
    # Contacting a search host sends the query out: asked per host (see CONTRACTS.md).
    read_only = False

    def __init__(self, config: Callable[[], SearchConfig], resolver: Resolver = system_resolve) -> None:
        self._config = config
        self._resolver = resolver

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        query = " ".join(req_str(args, "query").split())
        if not query:
            raise ToolError("The search query is empty.")
        if len(query) > MAX_QUERY:
            raise ToolError(f"The search query is longer than {MAX_QUERY} characters.")
        count = args.get("count", MAX_RESULTS)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_RESULTS:
            raise ToolError(f"count must be a whole number from 1 to {MAX_RESULTS}.")
        try:
            config = self._config()
        except SearchFailed as exc:
            raise ToolError(str(exc)) from exc
        host = urlsplit(config.url).hostname or ""
        if not host or urlsplit(config.url).scheme not in ("http", "https"):
            raise ToolError(f"The {config.backend} search address is not set: see Settings → Web search.")
        approval = ApprovalInfo(
            title=f"Search the web via {host}",
            detail=f"Send the query “{query}” to {host} ({config.backend}).",
            summary=summary("web_search", query, host=host, backend=config.backend),
            grant_key=GrantKey(kind="web_host", key=(host,)),
        )
        return PreparedCall(tool=self.name, args=args, approval=approval, state=(config, query, count))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        import httpx2  # lazy: keeps `cashcode ask` start-up fast

        config, query, count = call.state
        parts = urlsplit(config.url)
        host = parts.hostname or ""
        # Every hop through the SSRF guard; the configured address itself may be the user's own
        # local instance, a redirect target may not (app/tools/guarded_transport.py).
        transport = guarded_transport(
            allow_private=ctx.allow_private_network,
            trusted=(host.lower(), parts.port or (443 if parts.scheme == "https" else 80)),
            resolver=self._resolver,
        )
        try:
            async with httpx2.AsyncClient(
                transport=transport,
                trust_env=False,
                timeout=TIMEOUT_S,
                follow_redirects=True,
                max_redirects=5,
            ) as client:
                results = await search(client, config, query, count)
        except SearchFailed as exc:
            raise ToolError(f"Web search failed: {exc}") from exc
        except GuardRefused as exc:
            raise ToolError(f"Web search refused: {exc}.") from exc
        except httpx2.TooManyRedirects as exc:
            raise ToolError(f"Web search failed: {host} redirected more than 5 times.") from exc
        except httpx2.TimeoutException as exc:
            raise ToolError(f"Web search failed: {host} did not answer within {TIMEOUT_S:.0f} s.") from exc
        except httpx2.HTTPError as exc:
            raise ToolError(
                f"Web search failed: cannot reach {host} ({type(exc).__name__}). Check the network or"
                " choose another search backend in Settings → Web search."
            ) from exc
        return _result(query, config, results)


def _result(query: str, config: SearchConfig, results: list[SearchResult]) -> ToolResult:
    if not results:
        return ToolResult(ok=True, content=f"No results for “{query}”.", metadata={"count": 0})
    lines = [f"Results for “{query}” ({config.backend}):", ""]
    for n, r in enumerate(results, start=1):
        lines += [f"{n}. {r.title}", f"   {r.url}", *([f"   {r.snippet}"] if r.snippet else []), ""]
    return ToolResult(
        ok=True,
        content="\n".join(lines).rstrip(),
        metadata={
            "count": len(results),
            "results": [{"title": r.title, "url": r.url, "snippet": r.snippet} for r in results],
        },
    )
