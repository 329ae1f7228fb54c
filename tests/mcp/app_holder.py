"""A stand-in app process for the kill -9 test: connects the built-in stdio and HTTP servers,
prints READY, then waits to be killed. argv: BASE_DIR"""

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
    app = build_app(paths, {}, secrets=SecretStore(backend=MemoryKeyring()))
    for name in ("test_stdio_mcp", "test_http_mcp"):
        result = await app.invoke("mcp.servers.connect", {"name": name})
        if not result["ok"]:
            print("FAILED", result, flush=True)
            return
    print("READY", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
