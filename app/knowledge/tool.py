"""The `knowledge_search` tool: the best chunks of the user's knowledge bases with
`path:start-end` citations. Reading the user's own knowledge base asks nothing (read-only)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from app.contracts.agents import ALL, Allowed
from app.contracts.errors import ApiFailure
from app.contracts.tool_args import opt_int, opt_str, req_str
from app.contracts.tools import PreparedCall, Tool, ToolContext, ToolError, ToolResult
from app.knowledge.models import Hit
from app.knowledge.store import KnowledgeStore

if TYPE_CHECKING:
    from app.knowledge.search import KnowledgeSearcher

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
MAX_QUERY = 1000


class KnowledgeSearchTool(Tool):
    name = "knowledge_search"
    description = (
        "Search the user's knowledge bases (their own local folders of notes, documents and code) "
        "and return the best passages, each with a citation `path:start-end`. Cite the sources you "
        "use as `path:start-end`."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for (keywords work best)"},
            "kb": {"type": "string", "description": "only this knowledge base (by name); default: all"},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": f"passages to return (default {DEFAULT_LIMIT})",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(
        self, store: KnowledgeStore, searcher: Callable[[], KnowledgeSearcher], allowed: Allowed = ALL
    ) -> None:
        self._allowed = allowed  # the bases the chat's agent may search (issue 38)
        self._store = store
        self._searcher = searcher  # built on the first call (embeddings, vectors: not at start)

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        query = " ".join(req_str(args, "query").split())
        if not query:
            raise ToolError("The query is empty.")
        if len(query) > MAX_QUERY:
            raise ToolError(f"The query is longer than {MAX_QUERY} characters.")
        kb = opt_str(args, "kb")
        limit = opt_int(args, "limit", default=DEFAULT_LIMIT, lo=1, hi=MAX_LIMIT) or DEFAULT_LIMIT
        known = [n for n in self._store.names() if self._allowed.allows(n)]
        if kb is not None and kb not in known:
            names = ", ".join(known) or "none"
            raise ToolError(f"No knowledge base named {kb!r}; the knowledge bases are: {names}.")
        return PreparedCall(tool=self.name, args=args, approval=None, state=(query, kb, limit))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        query, kb, limit = call.state
        try:
            if kb is None and not self._allowed.everything:  # each allowed base, merged by rank
                bases = [n for n in self._store.names() if self._allowed.allows(n)]
                hits = await asyncio.to_thread(_search_each, self._searcher(), query, bases, limit)
            else:
                hits = await asyncio.to_thread(self._searcher().search, query, kb, limit)
        except ApiFailure as exc:
            raise ToolError(exc.message) from exc
        return result(query, hits)


def _search_each(searcher: KnowledgeSearcher, query: str, bases: list[str], limit: int) -> list[Hit]:
    """The best passages of several bases: round robin over each base's ranked hits (scores of
    separate searches are not comparable; ranks are)."""
    ranked = [searcher.search(query, base, limit) for base in bases]
    merged: list[Hit] = []
    for rank in range(limit):
        merged += [hits[rank] for hits in ranked if rank < len(hits)]
    return merged[:limit]


def result(query: str, hits: list[Hit]) -> ToolResult:
    if not hits:
        return ToolResult(ok=True, content=f"No passages match “{query}”.", metadata={"count": 0})
    parts = [f"Passages for “{query}” (cite them as path:start-end):"]
    for n, hit in enumerate(hits, start=1):
        where = f"{hit.base}" + (f" › {hit.heading}" if hit.heading else "")
        parts.append(f"[{n}] {hit.citation} ({where})\n{hit.text}")
    return ToolResult(
        ok=True,
        content="\n\n".join(parts),
        metadata={"count": len(hits), "citations": [h.citation for h in hits]},
    )
