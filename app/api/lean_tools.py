"""The lean tool set of a local provider's turn (issue 34, decision 309).

A model on a CPU reads every token of the request before it answers, and the tool schemas were
most of it. So a local provider's turn offers a few core tools in compact form
(app/tools/lean_specs.py) plus `tool_search`; the rest of the static catalog (the built-in
tools and every capability's listed tools) is deferred, like MCP tools already are:

- `mcp_prepare` (MCP's activation step) and `knowledge_search` (once a base exists) stay offered;
- `tool_search` finds deferred tools by what they do (BM25 over name, description and
  parameters), activates the best few in this chat and also asks MCP's own `tool_search`;
- an activated tool is offered in full from the next step on, in this chat's later turns too;
- a deferred tool the model calls by name without searching still runs, and is activated by
  that call.

What is offered changes only when a tool is activated, never from turn to turn, so the fixed
prefix of the request stays byte-identical and a server's prompt cache is reused. Tools that
exist only per chat (an MCP server's activated tools, result pages) are offered as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from app.contracts.messages import ToolSpec
from app.contracts.tool_args import search_query
from app.contracts.tools import PreparedCall, Tool, ToolContext, ToolResult
from app.contracts.turn import ToolBox
from app.tools import lean_specs

FOUND_PER_SEARCH = 3
_CORE = {s.name: s for s in lean_specs.CORE}
# Offered as they are: MCP's activation step (tool_search's MCP results point to it) and
# knowledge_search, which a turn has only once the user made a knowledge base.
_KEPT = ("mcp_prepare", "knowledge_search")
_OWN = frozenset({*_CORE, lean_specs.TOOL_SEARCH.name, *_KEPT})


class ToolActivations:
    """Per chat, the deferred tools found or called so far, in that order. Kept in memory: after
    a restart a tool is activated again by its first search or call."""

    def __init__(self) -> None:
        self._by_chat: dict[str, list[str]] = {}

    def of(self, chat_id: str) -> list[str]:
        return self._by_chat.setdefault(chat_id, [])


class LeanToolBox:
    """`inner` is the turn's whole tool box; `catalog` the names that may be deferred."""

    def __init__(self, inner: ToolBox, catalog: frozenset[str], activated: list[str]) -> None:
        self._inner = inner
        self._catalog = catalog
        self._activated = activated

    def specs(self) -> Sequence[ToolSpec]:
        offered = {s.name: s for s in self._inner.specs()}
        out = [spec for name, spec in _CORE.items() if name in offered]
        out.append(lean_specs.TOOL_SEARCH)
        out += [offered[n] for n in _KEPT if n in offered]
        out += [offered[n] for n in self._activated if n in offered and n not in _OWN]
        out += [s for n, s in offered.items() if n not in _OWN and n not in self._catalog]
        return out

    def get(self, name: str) -> Tool | None:
        if name == lean_specs.TOOL_SEARCH.name:
            return LeanToolSearch(self, self._inner.get(name))
        tool = self._inner.get(name)
        if tool is not None:
            self.activate(name)  # a deferred tool called by name runs, and is offered from now on
        return tool

    def deferred(self) -> list[ToolSpec]:
        return [
            s
            for s in self._inner.specs()
            if s.name in self._catalog and s.name not in _OWN and s.name not in self._activated
        ]

    def activate(self, name: str) -> None:
        if name in self._catalog and name not in _OWN and name not in self._activated:
            self._activated.append(name)


class LeanToolSearch(Tool):
    """`tool_search` over the deferred tools, then over MCP's (its own `tool_search`)."""

    name: ClassVar[str] = lean_specs.TOOL_SEARCH.name
    description: ClassVar[str] = lean_specs.TOOL_SEARCH.description
    parameters: ClassVar[dict[str, Any]] = dict(lean_specs.TOOL_SEARCH.parameters)
    read_only: ClassVar[bool] = True

    def __init__(self, box: LeanToolBox, mcp_search: Tool | None) -> None:
        self._box = box
        self._mcp = mcp_search

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(tool=self.name, args={"query": search_query(args)}, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        from app.search.bm25 import BM25Index  # only when a search runs

        query = str(call.args["query"])
        deferred = self._box.deferred()
        index = BM25Index((s.name, [s.name.replace("_", " "), s.description, *_params(s)]) for s in deferred)
        found = [name for name, _ in index.search(query, FOUND_PER_SEARCH)]
        by_name = {s.name: s for s in deferred}
        lines: list[str] = []
        if found:
            lines.append("Now offered (call them directly from the next step):")
            for name in found:
                self._box.activate(name)
                lines.append(f"- {name}: {by_name[name].description}")
        mcp = await self._search_mcp(query, ctx)
        if mcp:
            lines += ["MCP tools:", mcp]
        rest = [s.name for s in deferred if s.name not in found]
        if not found and not mcp:
            lines.append(f"No tool matches {query!r}.")
        if rest:
            lines.append("Other tools (search by what they do): " + ", ".join(rest))
        return ToolResult(ok=True, content="\n".join(lines))

    async def _search_mcp(self, query: str, ctx: ToolContext) -> str:
        if self._mcp is None:
            return ""
        result = await self._mcp.execute(await self._mcp.prepare({"query": query}, ctx), ctx)
        return result.content if result.ok and not result.content.startswith("No MCP tool") else ""


def _params(spec: ToolSpec) -> list[str]:
    properties = spec.parameters.get("properties")
    return list(properties) if isinstance(properties, dict) else []
