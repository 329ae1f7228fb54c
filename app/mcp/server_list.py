"""The compact list of configured MCP servers for the system prompt (issue 22 item 3): name and
one line each, so the model knows what it can `mcp_prepare` before any tool_search.

Read straight from the two catalog files with `json` only: it runs in every turn, `cashcode ask`
included, where the catalog code and the MCP SDK are not loaded (app/mcp/capability.py).
A file that cannot be read lists nothing; the catalog code reports it where it is managed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

MAX_SERVERS = 40
MAX_LINE = 120
# Controls, DEL, line separators and bidi marks: a description is someone else's text (a
# snippet, a registry entry), and one line must stay one line (issue 33 item 9).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _servers(path: Path, key: str) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = raw.get(key) if isinstance(raw, dict) else None
    return found if isinstance(found, dict) else {}


def _one_line(item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    text = str(item.get("description") or item.get("display_name") or "")
    line = " ".join(_CONTROLS.sub(" ", text).split())
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"


def configured_servers(builtin_catalog: Path | None, user_catalog: Path) -> list[tuple[str, str]]:
    """(name, one line) of the built-in (None: not in use) and the user's servers; a user entry
    wins a name."""
    builtin = _servers(builtin_catalog, "mcpServers") if builtin_catalog is not None else {}
    merged = {**builtin, **_servers(user_catalog, "servers")}
    return [(str(name), _one_line(item)) for name, item in sorted(merged.items())]


def prompt_lines(servers: list[tuple[str, str]]) -> list[str]:
    if not servers:
        return []
    lines = [
        "Configured MCP servers (their tools are hidden: activate one with mcp_prepare(server), "
        "or find tools with tool_search):"
    ]
    lines += [f"- {name}: {line}" if line else f"- {name}" for name, line in servers[:MAX_SERVERS]]
    if len(servers) > MAX_SERVERS:
        lines.append(f"- … {len(servers) - MAX_SERVERS} more (tool_search finds them)")
    return lines
