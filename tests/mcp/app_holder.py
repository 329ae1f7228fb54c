"""A stand-in app process for the kill -9 test: connects the built-in stdio and HTTP servers,
calls say_hello on each, prints READY, then waits to be killed.
argv: BASE_DIR [--frozen EXE] — with --frozen, the process acts as a frozen build whose
executable is EXE (sys.frozen set, sys.executable = EXE), see tests/mcp/test_frozen.py."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from app.api.bootstrap import build_app
from app.settings.paths import AppPaths
from app.settings.secrets import SecretStore
from app.testing.fake_keyring import MemoryKeyring


async def main(base: Path) -> None:
    paths = AppPaths(base / "data", base / "config", base / "logs", base / "cache")
    app = build_app(paths, {"CASHCODE_MCP_TEST_SERVERS": "1"}, secrets=SecretStore(backend=MemoryKeyring()))
    for name in ("test_stdio_mcp", "test_http_mcp"):
        result = await app.invoke("mcp.servers.connect", {"name": name})
        if result["ok"]:
            result = await app.invoke("mcp.tools.call", {"name": name, "tool": "say_hello"})
        if not result["ok"] or result["data"]["text"] != "Hello, Cash":
            print("FAILED", result, flush=True)
            return
    print("READY", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    if "--frozen" in sys.argv:
        sys.frozen = True  # type: ignore[attr-defined]
        sys.executable = sys.argv[sys.argv.index("--frozen") + 1]
    asyncio.run(main(Path(sys.argv[1])))
