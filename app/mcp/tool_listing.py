"""Listing a server's tools so that one malformed tool cannot hide all the others.

The SDK validates a `tools/list` page as a whole: one tool whose `inputSchema` is not an
object (`5`, a string, a list) fails the page, and with it every tool of the server. When that
happens the page is fetched again unvalidated and checked tool by tool; a tool that does not
pass is skipped and named in a diagnostic (issue 24 item 5)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from app.mcp.connection import ToolDef

_log = logging.getLogger(__name__)
MAX_SKIPPED_NOTES = 20  # a server with thousands of broken tools gets a count, not a wall


@dataclass
class ToolListing:
    tools: list[ToolDef] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one readable line per skipped tool


async def list_tools(client: Any, to_def: Callable[[Any], ToolDef], max_tools: int) -> ToolListing:
    """Every page of the server's tools (at most `max_tools`), each tool made a `ToolDef`."""
    out = ToolListing()
    cursor: str | None = None
    while True:
        try:
            page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        except ValidationError:
            page = await _lenient_page(client, cursor, out.skipped)
        out.tools.extend(to_def(t) for t in page.tools)
        cursor = page.next_cursor
        if not cursor or len(out.tools) >= max_tools:
            out.tools = out.tools[:max_tools]
            if len(out.skipped) > MAX_SKIPPED_NOTES:
                more = len(out.skipped) - MAX_SKIPPED_NOTES
                out.skipped = [*out.skipped[:MAX_SKIPPED_NOTES], f"… and {more} more tools skipped"]
            return out


async def _lenient_page(client: Any, cursor: str | None, skipped: list[str]) -> Any:
    """The page fetched without the SDK's whole-page check, then checked one tool at a time
    against the negotiated protocol version's schema. This reaches into the session's request
    sender (the SDK is pinned exactly); if that is not there the original error stands."""
    from mcp import types
    from mcp_types import methods

    session = client.session
    dispatcher, stamp = getattr(session, "_dispatcher", None), getattr(session, "_stamp", None)
    if dispatcher is None or stamp is None:
        page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        return page  # unreachable with the pinned SDK: the first call raised already
    request = types.ListToolsRequest(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: dict[str, Any] = {}
    stamp(data, opts)
    raw = await dispatcher.send_raw_request(data["method"], data.get("params"), opts)
    version = client.protocol_version
    items = raw.get("tools") if isinstance(raw, dict) else None
    if not isinstance(items, list):
        raise ValueError("the server's tool list is not a list")
    good: list[Any] = []
    for item in items:
        try:
            methods.validate_server_result("tools/list", version, {"tools": [item]})
            good.append(item)
        except (ValidationError, ValueError, KeyError) as exc:
            skipped.append(_skip_note(item, exc))
    next_cursor = raw.get("nextCursor")
    page = types.ListToolsResult.model_validate(
        {"tools": good, "nextCursor": next_cursor if isinstance(next_cursor, str) else None}
    )
    absorb = getattr(session, "_absorb_tool_listing", None)
    if absorb is not None:  # the session's per-tool state (output schemas) as list_tools keeps it
        page = absorb(page, complete=cursor is None and page.next_cursor is None)
    return page


def _skip_note(item: Any, exc: Exception) -> str:
    name = item.get("name") if isinstance(item, dict) else None
    label = repr(name[:100]) if isinstance(name, str) else "a tool without a name"
    schema = item.get("inputSchema") if isinstance(item, dict) else None
    if isinstance(item, dict) and not isinstance(schema, dict):
        why = f"its input schema is {_kind(schema)}, not an object"
    else:
        first = exc.errors()[0] if isinstance(exc, ValidationError) and exc.errors() else None
        where = ".".join(str(p) for p in first["loc"]) if first else ""
        why = f"it does not match the MCP schema ({where}: {first['msg']})" if first else str(exc)[:200]
    _log.info("skipped MCP tool %s: %s", label, why)
    return f"skipped tool {label}: {why}"


def _kind(value: Any) -> str:
    if value is None:
        return "missing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else type(value).__name__
