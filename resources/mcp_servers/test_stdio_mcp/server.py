"""Built-in test MCP server over stdio: `say_hello` -> "Hello, Cash"."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # hello_server.py sits one level up

from hello_server import build  # noqa: E402

if __name__ == "__main__":
    build("test_stdio_mcp").run()
