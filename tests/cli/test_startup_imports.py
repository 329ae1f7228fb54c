"""`cashcode ask` must stay cheap to start (SPEC S14): no web framework, MCP, keyring, YAML or
UI toolkit on its path when the key comes from the environment and no workspace config exists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

FORBIDDEN = ("fastapi", "starlette", "uvicorn", "mcp", "keyring", "yaml", "webview", "PyQt6", "watchfiles")
# The app's own code a plain turn does not run: capability route code and models (loaded on the
# first capability route call), the tools' code (loaded on a tool's first call), and the MCP
# service, catalog and search index (loaded when a chat has MCP tools activated or selected), and
# Dream with its timer and proposals (loaded by the Memory view or a long-lived surface's start),
# and the Skill self-evolver (off by default; loaded when on or on the first Skills route call).
APP_FORBIDDEN = (
    "app.memory.handlers",
    "app.memory.api_models",
    "app.memory.dream",
    "app.memory.proposals",
    "app.memory.soul",
    "app.mcp.api_handlers",
    "app.mcp.api_models",
    "app.mcp.service",
    "app.mcp.catalog",
    "app.mcp.connection",
    "app.mcp.tools",
    "app.search.bm25",
    "app.skills.model",
    "app.skills.evolver",
    "app.skills.api_models",
    "app.observability.api_models",
    "app.observability.eval_api_models",
    "app.history",
    "app.importer.api_routes",
    "app.importer.models",
    "app.attachments.capability",
    "app.websearch.api_models",
    "app.tasks.capability",  # a plain turn builds only app/tasks/hooks.py
    "app.tasks.scheduler",
    "app.tasks.store",
    "app.tasks.api_models",
    "app.websearch.backends",
    "app.tools.exec",
    "app.tools.fs",
    "app.tools.search",
    "app.tools.web",
)


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
    # A capability's declaration (its package's docstring-only `__init__` and `plugin.py`, which
    # import only app.contracts) is read at every start: that is how it registers itself.
    declared = {m for m in imported if m.endswith(".plugin")} | {
        m.rsplit(".", 1)[0] for m in imported if m.endswith(".plugin")
    }
    app_loaded = sorted(
        m for m in imported - declared if m in APP_FORBIDDEN or m.rsplit(".", 1)[0] in APP_FORBIDDEN
    )
    assert app_loaded == []
