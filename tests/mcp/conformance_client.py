"""MCP conformance client built on app/mcp (not on the raw SDK).

The conformance runner (`@modelcontextprotocol/conformance client --command ...`) appends the
scenario server's URL as the last argument and sets MCP_CONFORMANCE_SCENARIO (and, for some
scenarios, MCP_CONFORMANCE_CONTEXT as JSON). We add the URL as a user catalog entry, connect
through `McpService`, and do what the scenario asks. Elicitation requests are accepted with the
form's defaults (what a user pressing Submit on an untouched form sends).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.events import AppEvent, McpElicitation
from app.mcp.catalog import EntryInput, UserCatalog, builtin_dir
from app.mcp.service import CallSite, McpPaths, McpService
from app.settings.secrets import SecretStore

# What each scenario's server expects the client to call.
CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sse-retry": [("test_reconnection", {})],
}


async def run(url: str, scenario: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        service: McpService | None = None

        def publish(event: AppEvent) -> None:
            if isinstance(event, McpElicitation) and not event.closed and service is not None:
                service.elicitations.answer(event.id, "accept", {})

        service = McpService(
            McpPaths(
                builtin=base / "none", catalog=base / "servers.json", cache=base / "cache", logs=base / "logs"
            ),
            UserCatalog(base / "servers.json", SecretStore()),
            publish,
            call_timeout_s=30,
        )
        service.elicitations.enable()
        service.save(EntryInput(name="conformance", transport="http", url=url), create=True)
        try:
            conn = await service.connect("conformance")
            names = {t.name for t in conn.tools}
            for tool, args in CALLS.get(scenario, []):
                if tool in names:
                    out = await service.call("conformance", tool, args, CallSite())
                    print(f"{tool}: {'ok' if out.ok else 'error'}: {out.text[:200]}")
        finally:
            await service.aclose()
    return 0


def main() -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if context:
        print(f"context keys: {sorted(context)}", file=sys.stderr)
    return asyncio.run(run(sys.argv[-1], scenario))


if __name__ == "__main__":
    _ = builtin_dir
    sys.exit(main())
