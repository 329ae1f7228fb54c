"""Turning MCP wire objects into what we keep and show: tool definitions (with sanitised
schemas), tool names the providers accept, and call results as capped text."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from app.mcp import apps
from app.mcp.connection import ToolDef

MAX_NAME = 64
# What one call may keep in memory; the model reads it in pages (result_pages.py). At most
# MAX_KEPT (32) results are kept per process, so this bounds their memory (decision 361).
MAX_OUTPUT_CHARS = 2_000_000
DIRECT_CALL_CHARS = 100_000  # what `mcp.tools.call` (a person's direct call, not paged) returns
MAX_DESCRIPTION = 10_000  # real servers use several thousand characters (sequential-thinking: 2,781)
_BAD = re.compile(r"[^A-Za-z0-9_-]")
EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def tool_def(tool: Any) -> ToolDef:
    """From an SDK `Tool`. A schema that is not a JSON-Schema object is replaced by an empty
    object schema and the tool carries a diagnostic (a bad server must not break the turn)."""
    schema = tool.input_schema
    diagnostic = None
    if (
        not isinstance(schema, dict)
        or schema.get("type", "object") != "object"
        or not isinstance(schema.get("properties", {}), dict)
    ):
        diagnostic = "the server sent an invalid input schema; the tool is offered without parameters"
        schema = dict(EMPTY_SCHEMA)
    elif not _valid_schema(schema):
        diagnostic = "the server sent an invalid JSON Schema; the tool is offered without parameters"
        schema = dict(EMPTY_SCHEMA)
    hint = getattr(getattr(tool, "annotations", None), "read_only_hint", None)
    meta = getattr(tool, "meta", None)
    return ToolDef(
        name=str(tool.name),
        description=cut_description(tool.description or ""),
        input_schema=schema,
        read_only_hint=hint,
        diagnostic=diagnostic,
        ui_resource_uri=apps.resource_uri(meta),
        visibility=apps.visibility(meta),
    )


def cut_description(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """A description over `limit` characters is cut with a marker saying how much is left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" [… description cut: {len(text) - limit} of {len(text)} characters left out]"


def _valid_schema(schema: dict[str, Any]) -> bool:
    """A provider rejects the whole request for one bad tool schema, so check it first."""
    import jsonschema  # a dependency of the MCP SDK

    try:
        json.dumps(schema)
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except (TypeError, ValueError, jsonschema.SchemaError):
        return False
    return True


def _base_name(server: str, tool: str) -> str:
    return _BAD.sub("_", f"mcp_{server}_{tool}")


def _hashed(server: str, tool: str, base: str) -> str:
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{base[: MAX_NAME - 9]}_{digest}"


def name_map(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """`mcp_<server>_<tool>` per pair, sanitised to ≤ 64 chars of [A-Za-z0-9_-] and unique:
    a name that had to be shortened or that collides gets a short hash of (server, tool).
    Deterministic for the same set of pairs. In a collision the pair whose name needed no
    change keeps it and the derived one (characters replaced) gets the hash: a tool `get_x`
    keeps `mcp_s_get_x` although `get.x` sorts first."""
    out: dict[tuple[str, str], str] = {}
    taken: set[str] = set()

    def derived(pair: tuple[str, str]) -> bool:
        return _BAD.search(f"{pair[0]}{pair[1]}") is not None

    for server, tool in sorted(set(pairs), key=lambda p: (derived(p), p)):
        base = _base_name(server, tool)
        name = base if len(base) <= MAX_NAME else _hashed(server, tool, base)
        if name in taken:
            name = _hashed(server, tool, base)
        taken.add(name)
        out[(server, tool)] = name
    return out


def result_text(result: Any) -> str:
    """The text the model sees: text blocks, then short notes for images/audio/resources, or
    the structured content as JSON when there is no text."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {block.mime_type}, {len(block.data) * 3 // 4} bytes]")
        elif kind == "resource":
            res = block.resource
            parts.append(getattr(res, "text", None) or f"[binary resource {res.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


def cap(text: str, limit: int = MAX_OUTPUT_CHARS) -> tuple[str, bool]:
    """`text`, or its first whole lines up to `limit` with a marker saying what is left out and
    why it cannot be paged to (the call is not repeated: it may change things)."""
    if len(text) <= limit:
        return text, False
    brk = text.rfind("\n", limit // 2, limit)
    kept = brk + 1 if brk != -1 else limit
    return text[:kept] + (
        f"\n[… MCP output cut: the result has {len(text)} characters and only the first {kept} are kept "
        f"(at most {limit}); the other {len(text) - kept} cannot be read with mcp_result_page. To see "
        "them, call the tool again asking for less (a narrower query, a range or a page of its own), "
        "if it offers that]"
    ), True
