"""The `knowledge_search` tool: the best chunks of the user's knowledge bases with
`path:start-end` citations. Reading the user's own knowledge base asks nothing (read-only)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

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

    def __init__(self, store: KnowledgeStore, searcher: Callable[[], KnowledgeSearcher]) -> None:
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
        if kb is not None and kb not in self._store.names():
            names = ", ".join(self._store.names()) or "none"
            raise ToolError(f"No knowledge base named {kb!r}; the knowledge bases are: {names}.")
        return PreparedCall(tool=self.name, args=args, approval=None, state=(query, kb, limit))

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        query, kb, limit = call.state
        try:
            hits = await asyncio.to_thread(self._searcher().search, query, kb, limit)
        except ApiFailure as exc:
            raise ToolError(exc.message) from exc
        return result(query, hits)


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
