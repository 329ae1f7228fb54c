"""Built-in test MCP server over sse: `say_hello` -> "Hello, Cash"."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # hello_server.py sits one level up

from hello_server import build  # noqa: E402

if __name__ == "__main__":
    # argv: --port N (the app picks a free loopback port and passes it)
    port = int(sys.argv[sys.argv.index("--port") + 1])
    build("test_sse_mcp").run(transport="sse", host="127.0.0.1", port=port)
