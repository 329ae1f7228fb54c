"""Parse a request body or WebSocket frame into a JSON object, refusing what would hurt.

`json.loads` recurses once per nesting level, so a body of 100 000 `[` raises RecursionError
(a 500 before this module existed), and moderately deep payloads still cost the validators
deep recursion later. No route needs more than a few levels, so depth is capped here.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64


class BadJson(ValueError):
    """The text is not a JSON object this server accepts; the message says why."""


def nesting_depth(value: Any) -> int:
    """Deepest nesting of lists/objects, computed without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _bracket_depth_exceeds(text: str, limit: int) -> bool:
    # Cheap pre-scan so hostile nesting never reaches the recursive parser. Brackets inside
    # strings may overcount; that only matters for text that is nested anyway (rare, refused).
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def parse_object(raw: bytes | str, *, max_depth: int = MAX_DEPTH, empty_ok: bool = True) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise BadJson("Request body is not valid JSON.") from exc
    if not text.strip():
        if empty_ok:
            return {}
        raise BadJson("Request body is not valid JSON.")
    if _bracket_depth_exceeds(text, max_depth):
        raise BadJson(f"JSON is nested deeper than {max_depth} levels.")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:  # ValueError: also an integer past Python's digit limit
        raise BadJson("Request body is not valid JSON.") from exc
    if not isinstance(value, dict):
        raise BadJson("Request body must be a JSON object.")
    return value
