"""`cashcode ask` must stay cheap to start (SPEC S14): no web framework, MCP, keyring, YAML or
UI toolkit on its path when the key comes from the environment and no workspace config exists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

FORBIDDEN = ("fastapi", "starlette", "uvicorn", "mcp", "keyring", "yaml", "webview", "PyQt6", "watchfiles")


def test_ask_imports_nothing_heavy_it_does_not_need(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": "ok"})
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "app", "ask", "hi"],
        env=env,
        cwd=home / "ws",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    imported = {
        line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")
    }
    loaded = sorted(m for m in imported if m.split(".")[0] in FORBIDDEN)
    assert loaded == []
