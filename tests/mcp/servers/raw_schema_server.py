"""A hand-written stdio MCP server (newline-delimited JSON-RPC, no SDK) whose tool list holds
one tool with a non-object `inputSchema` next to two good tools: the SDK's own server would
refuse to send such a list, a careless server in another language does not."""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {"name": "good_one", "description": "A fine tool.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "broken", "description": "Its schema is a number.", "inputSchema": 5},
    {
        "name": "good_two",
        "description": "Another fine tool.",
        "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
]


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    method, params = request.get("method"), request.get("params") or {}
    if "id" not in request:
        return None  # a notification
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        word = (params.get("arguments") or {}).get("word", "")
        result = {"content": [{"type": "text", "text": f"{params.get('name')} says {word}".strip()}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no such method"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        print(f"raw server got: {line.strip()[:300]}", file=sys.stderr, flush=True)
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
