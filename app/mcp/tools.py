"""What the model sees of MCP: `tool_search`, `mcp_prepare` and the chat's activated tools.

MCP tools stay hidden until activated (SPEC S6.4–S6.5): the model searches, prepares a server
(lazy connect + activation in this chat), and from the next step on calls `mcp_<server>_<tool>`
directly — also in later turns and after a restart (activations are stored per chat).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from app.contracts.agents import ALL, Allowed
from app.contracts.events import ApprovalSummaryCode
from app.contracts.messages import ToolSpec
from app.contracts.tool_args import search_query
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
from app.mcp import apps
from app.mcp import tool_specs as specs
from app.mcp.activations import CAPACITY, ActivationStore
from app.mcp.app_calls import AppCall, AppCallStore, kept_result
from app.mcp.config import ConfigError
from app.mcp.connection import ServerGone, ToolDef
from app.mcp.events import McpAppCall
from app.mcp.result_pages import McpResultPageTool, ResultPages
from app.mcp.results import name_map
from app.mcp.service import CallOutcome, CallSite, McpService, NotFoundError

if TYPE_CHECKING:
    from app.search.bm25 import BM25Index

SEARCH_LIMIT = 8


class McpDirectory:
    """Every known tool (live or cached) and every server without known tools, with the
    provider-safe names and a BM25 index; rebuilt when the service's revision changes."""

    def __init__(self, service: McpService) -> None:
        self._service = service
        self._revision = -1
        self._catalog_key: tuple[str, ...] = ()
        self.tools: dict[tuple[str, str], ToolDef] = {}
        self.names: dict[tuple[str, str], str] = {}
        self.by_name: dict[str, tuple[str, str]] = {}
        self.unknown: list[str] = []  # servers never connected
        self._docs: list[tuple[str, Sequence[str]]] = []
        self._index: BM25Index | None = None

    @property
    def index(self) -> BM25Index:
        """Built on the first search, not on every refresh: most turns (every `cashcode ask`)
        never call tool_search, and tokenizing the whole catalog is their largest MCP cost."""
        if self._index is None:
            from app.search.bm25 import BM25Index

            self._index = BM25Index(self._docs)
        return self._index

    def refresh(self) -> McpDirectory:
        entries = self._service.entries()
        key = tuple(f"{e.name}:{e.fingerprint()}" for e in entries)
        if self._revision == self._service.revision and key == self._catalog_key:
            return self
        tools: dict[tuple[str, str], ToolDef] = {}
        unknown: list[str] = []
        docs: list[tuple[str, Sequence[str]]] = []
        for entry in entries:
            known = self._service.tools(entry.name)
            if known is None:
                unknown.append(entry.name)
                docs.append(
                    (
                        f"server:{entry.name}",
                        [entry.name, entry.display_name, entry.description, entry.transport],
                    )
                )
                continue
            for t in known:
                if apps.for_model(t.visibility):  # an App-only tool is never offered to the model
                    tools[(entry.name, t.name)] = t
        self.names = name_map(tools)
        shown = {e.name: e.display_name for e in entries}  # a dict: 10,000 tools × 200 servers
        for (server, tool), t in tools.items():
            params = " ".join((t.input_schema.get("properties") or {}).keys())
            docs.append((self.names[(server, tool)], [tool, t.description, params, server, shown[server]]))
        self.tools, self.unknown = tools, unknown
        self.by_name = {v: k for k, v in self.names.items()}
        self._docs, self._index = docs, None
        self._revision, self._catalog_key = self._service.revision, key
        return self


class ToolSearchTool(Tool):
    name = specs.TOOL_SEARCH.name
    description = specs.TOOL_SEARCH.description
    parameters = specs.TOOL_SEARCH.parameters
    read_only = True

    def __init__(self, directory: McpDirectory, active: set[str], allowed: Allowed = ALL) -> None:
        self._dir = directory
        self._active = active
        self._allowed = allowed  # the servers the chat's agent may use (issue 38)

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        return PreparedCall(tool=self.name, args={"query": search_query(args)}, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        d = self._dir.refresh()
        allowed = self._allowed
        # One index for every agent: a scoped search ranks the whole catalog and keeps the
        # agent's servers' hits, so another agent's server never appears, not even as a count.
        wanted = SEARCH_LIMIT if allowed.everything else len(d.by_name) + len(d.unknown)
        hits = [
            h for h in d.index.search(str(call.args["query"]), wanted) if allowed.allows(_server_of(d, h[0]))
        ]
        results: list[dict[str, Any]] = []
        for doc_id, score in hits[:SEARCH_LIMIT]:
            if doc_id.startswith("server:"):
                server = doc_id.split(":", 1)[1]
                results.append(
                    {
                        "server": server,
                        "tools": "unknown until connected",
                        "next": f"call mcp_prepare with server={server!r}",
                    }
                )
                continue
            server, tool = d.by_name[doc_id]
            t = d.tools[(server, tool)]
            results.append(
                {
                    "name": doc_id,
                    "server": server,
                    "tool": tool,
                    "description": t.description[:300],
                    "parameters": sorted((t.input_schema.get("properties") or {}).keys()),
                    "active": doc_id in self._active,
                    **(
                        {} if doc_id in self._active else {"next": f"call mcp_prepare with server={server!r}"}
                    ),
                    "score": round(score, 3),
                }
            )
        if not results:
            return ToolResult(ok=True, content=f"No MCP tool matches {call.args['query']!r}.")
        return ToolResult(ok=True, content=json.dumps(results, ensure_ascii=False, indent=1))


class McpPrepareTool(Tool):
    name = specs.MCP_PREPARE.name
    description = specs.MCP_PREPARE.description
    parameters = specs.MCP_PREPARE.parameters
    read_only = True  # connecting a configured (and, for programs, confirmed) server changes nothing

    def __init__(
        self, service: McpService, directory: McpDirectory, store: ActivationStore, allowed: Allowed = ALL
    ) -> None:
        self._service = service
        self._dir = directory
        self._store = store
        self._allowed = allowed

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        server = args.get("server")
        wanted = args.get("tools")
        if not isinstance(server, str) or not server:
            raise ToolError("'server' must be the catalog name of an MCP server")
        if wanted is not None and (
            not isinstance(wanted, list) or not all(isinstance(w, str) for w in wanted)
        ):
            raise ToolError("'tools' must be a list of tool names")
        return PreparedCall(tool=self.name, args={"server": server, "tools": wanted}, approval=None)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        server = str(call.args["server"])
        if not self._allowed.allows(server):  # word for word what a name never configured gets
            raise ToolError(f"could not prepare {server!r}: there is no MCP server named {server[:60]!r}")
        try:
            conn = await self._service.connect(server)
        except (NotFoundError, ConfigError, ServerGone) as exc:
            raise ToolError(f"could not prepare {server!r}: {self._service.redact(str(exc))}") from None
        wanted = call.args.get("tools")
        names = [t.name for t in conn.tools if wanted is None or t.name in wanted]
        if wanted is not None and not names:
            raise ToolError(f"{server!r} has none of the tools {wanted!r}")
        chosen = names[:CAPACITY]
        if ctx.chat_id:
            self._store.touch(ctx.chat_id, [(server, n) for n in chosen])
        d = self._dir.refresh()
        exposed = [d.names[(server, n)] for n in chosen if (server, n) in d.names]
        more = (
            f" ({len(names) - len(chosen)} more not activated: name them in 'tools')"
            if len(names) > len(chosen)
            else ""
        )
        return ToolResult(
            ok=True,
            content=f"Connected {server!r}. Activated tools (call them directly): {', '.join(exposed)}{more}",
        )


class McpTool(Tool):
    """One activated MCP tool. Asks by default; "always" stores GrantKey("mcp", (server, tool)).
    A readOnlyHint is shown in the approval, never trusted to skip it."""

    read_only = False

    def __init__(
        self,
        exposed: str,
        server: str,
        definition: ToolDef,
        service: McpService,
        store: ActivationStore,
        pages: ResultPages,
        *,
        standing: bool = True,
        app_calls: AppCallStore | None = None,
        for_app: bool = False,
    ) -> None:
        self.name = exposed  # type: ignore[misc]
        hint = " (the server says it is read-only)" if definition.read_only_hint else ""
        self.description = (definition.description or f"{definition.name} from MCP server {server}") + hint  # type: ignore[misc]
        self.parameters = definition.input_schema  # type: ignore[misc]
        self._server = server
        self._def = definition
        self._service = service
        self._store = store
        self._pages = pages
        self._standing = standing  # False: offered by an @-selection for this turn only
        self._app_calls = app_calls
        # Called by an MCP App (app/mcp/apps_routes.py): the App gets the server's whole result,
        # not pages of its text.
        self._for_app = for_app

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        arguments = json.dumps(dict(args), ensure_ascii=False, indent=2, sort_keys=True)[:4_000]
        detail = arguments
        if self._def.read_only_hint:
            detail += "\n\nThe server marks this tool read-only (a hint, not verified)."
        code: ApprovalSummaryCode = "mcp_tool_read_only" if self._def.read_only_hint else "mcp_tool"
        info = ApprovalInfo(
            title=f"Use MCP tool {self._def.name} on {self._server}",
            detail=detail,
            summary=summary(code, arguments, tool=self._def.name, server=self._server),
            grant_key=GrantKey(kind="mcp", key=(self._server, self._def.name)),
        )
        return PreparedCall(tool=self.name, args=args, approval=info)

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        if ctx.chat_id and self._standing:
            self._store.touch(ctx.chat_id, [(self._server, self._def.name)])
        site = CallSite(chat_id=ctx.chat_id, turn_id=ctx.turn_id, tool=self.name)
        shows_app = self._def.ui_resource_uri is not None and self._app_calls is not None
        try:
            out = await self._service.call(
                self._server, self._def.name, call.args, site, keep_raw=shows_app or self._for_app
            )
        except (NotFoundError, ConfigError, ServerGone) as exc:
            raise ToolError(self._service.redact(str(exc))) from None
        if shows_app and ctx.chat_id and ctx.call_id:
            self._show_app(ctx, dict(call.args), out)
        content = out.text if out.ok else f"Error from the MCP tool: {out.text}"
        if self._for_app:
            raw = self._redacted(out.raw)
            return ToolResult(ok=out.ok, content=content, metadata={"mcp_result": raw} if raw else {})
        content, paged = self._pages.first_page(ctx.chat_id, content, ctx.output_budget)
        return ToolResult(ok=out.ok, content=content, truncated=out.truncated or paged)


    def _show_app(self, ctx: ToolContext, args: dict[str, Any], out: CallOutcome) -> None:
        """Keep the call for the App's card (reopening the chat renders it again) and tell the
        UI the card has an App."""
        assert self._app_calls is not None and self._def.ui_resource_uri is not None
        raw = self._redacted(out.raw)
        self._app_calls.record(
            AppCall(
                chat_id=ctx.chat_id,
                call_id=ctx.call_id,
                turn_id=ctx.turn_id,
                server=self._server,
                tool=self._def.name,
                uri=self._def.ui_resource_uri,
                arguments=args,
                result=kept_result(raw, out.text, out.ok),
            )
        )
        self._service.publish(
            McpAppCall(
                chat_id=ctx.chat_id,
                turn_id=ctx.turn_id,
                call_id=ctx.call_id,
                server=self._server,
                tool=self._def.name,
                uri=self._def.ui_resource_uri,
            )
        )


    def _redacted(self, raw: dict[str, Any] | None) -> dict[str, Any] | None:
        """The server's whole result, redacted like its text (a server may echo a secret)."""
        if raw is None:
            return None
        try:
            value = json.loads(self._service.redact(json.dumps(raw, ensure_ascii=False)))
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


class McpToolBox:
    """The per-turn ToolBox: recomputed on every `specs()` so tools activated by `mcp_prepare`
    appear at the next step of the same turn."""

    def __init__(
        self,
        chat_id: str,
        service: McpService,
        directory: McpDirectory,
        store: ActivationStore,
        pages: ResultPages,
        mentioned: Sequence[str] = (),
        app_calls: AppCallStore | None = None,
        allowed: Allowed = ALL,
    ) -> None:
        self._app_calls = app_calls
        self._allowed = allowed  # the servers the chat's agent may use (issue 38)
        self._chat_id = chat_id
        self._pages = pages
        self._service = service
        self._dir = directory
        self._store = store
        self._mentioned = tuple(mentioned)  # @-selected servers: their tools for this turn only

    def _tools(self) -> dict[str, Tool]:
        d = self._dir.refresh()
        active: dict[str, Tool] = {}
        allowed = self._allowed
        standing = (
            [p for p in self._store.list(self._chat_id) if allowed.allows(p[0])] if self._chat_id else []
        )
        # @-selected servers: offered for this turn only, not added to the chat's activations.
        mentioned = [
            p for p in d.tools if p[0] in self._mentioned and allowed.allows(p[0]) and p not in standing
        ]
        for pairs, keep in ((standing, True), (mentioned, False)):
            for server, tool in pairs:
                definition = d.tools.get((server, tool))
                exposed = d.names.get((server, tool))
                if definition is None or exposed is None or self._service.is_disconnected(server):
                    continue
                active[exposed] = McpTool(
                    exposed,
                    server,
                    definition,
                    self._service,
                    self._store,
                    self._pages,
                    standing=keep,
                    app_calls=self._app_calls,
                )
        base: dict[str, Tool] = {
            "tool_search": ToolSearchTool(d, set(active), allowed),
            "mcp_prepare": McpPrepareTool(self._service, d, self._store, allowed),
        }
        if self._pages.has(self._chat_id):  # offered once a long result has pages to read
            base["mcp_result_page"] = McpResultPageTool(self._pages)
        return {**base, **active}

    def specs(self) -> Sequence[ToolSpec]:
        return [t.spec() for t in self._tools().values()]

    def get(self, name: str) -> Tool | None:
        tool = self._tools().get(name)
        if tool is None and name.startswith("mcp_"):
            pair = self._dir.by_name.get(name)
            return _HiddenTool(name, pair if pair is not None and self._allowed.allows(pair[0]) else None)
        return tool


def _server_of(d: McpDirectory, doc_id: str) -> str:
    if doc_id.startswith("server:"):
        return doc_id.split(":", 1)[1]
    return d.by_name[doc_id][0]


class _HiddenTool(Tool):
    """A call to an MCP tool that is not offered in this chat: the answer says what to call
    first instead of a bare "unknown tool"."""

    description = "an MCP tool that is not activated"
    parameters: ClassVar[dict[str, Any]] = {"type": "object"}  # any arguments: refused in prepare
    read_only = True

    def __init__(self, name: str, pair: tuple[str, str] | None) -> None:
        self.name = name  # type: ignore[misc]
        self._pair = pair

    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        if self._pair is None:
            raise ToolError(
                f"{self.name!r} is not an active MCP tool. Find the tool with tool_search, "
                "activate its server with mcp_prepare, then call the name mcp_prepare returns."
            )
        server = self._pair[0]
        raise ToolError(
            f"{self.name!r} is not activated in this chat: call mcp_prepare with server={server!r} first, "
            "then call it again."
        )

    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        raise ToolError(f"{self.name!r} is not activated in this chat")
