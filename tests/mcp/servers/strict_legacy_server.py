"""A legacy (2025-06-18) stdio MCP server that insists on `initialize` as the first message and
exits otherwise, as some servers built on older SDKs do: a `server/discover` probe ends it.

Raw JSON-RPC on purpose (no SDK): it must behave exactly like such a server, whatever the SDK
in this venv does. Tool: `say_legacy` -> "legacy ok".
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOL = {
    "name": "say_legacy",
    "description": "Answer from a server of the 2025-06-18 protocol.",
    "inputSchema": {"type": "object", "properties": {}},
}


def reply(id_: Any, result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> int:
    first = True
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if first and method != "initialize":
            print(f"expected an initialize request first, got {method}", file=sys.stderr)
            return 1
        first = False
        if method == "initialize":
            reply(
                message["id"],
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "strict-legacy", "version": "1"},
                },
            )
        elif method == "tools/list":
            reply(message["id"], {"tools": [TOOL]})
        elif method == "tools/call":
            reply(message["id"], {"content": [{"type": "text", "text": "legacy ok"}]})
        elif "id" in message:
            sys.stdout.write(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": -32601, "message": "Method not found"},
                    }
                )
                + "\n"
            )
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
