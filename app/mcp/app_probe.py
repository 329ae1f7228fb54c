"""Which tools of a server not yet connected have MCP Apps, and what each App's page declares:
asked of the server itself, once, inside the sandbox (issue 37 item 3; docs/decisions.md 550-).

A preview (bundle, Registry plan, the confirm step of a user-added server, a catalog install)
starts the stdio server confined by the per-server sandbox (app/mcp/sandboxed.py) with the
probe's policy: read its install folder and the system, write only a private temp folder, no
network (whatever the entry says). It then sends `initialize`, `tools/list` and a
`resources/read` of each App page (at most 20) and stops the server and its process group (the
SDK closes its stdin, then signals the guard's group). All of it has one short deadline; a slow
or failing server makes the answer "not known until the first connect", never a failed preview.

Never run unconfined: without a sandbox (no Landlock, not Linux) the answer says so. Remote
(HTTP/SSE) entries are not contacted before the user confirms.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.contracts.mcp_apps import PROBE_TIMEOUT_S, McpAppPreview, McpAppsProbe
from app.mcp import apps
from app.mcp.config import Resolved, ServerEntry
from app.mcp.connection import describe
from app.mcp.results import tool_def
from app.mcp.sandboxed import McpSandbox, SandboxSource
from app.mcp.stderr_log import useful_line
from app.mcp.tool_listing import list_tools

MAX_PAGES = 20  # App pages read per probe, as the connected tool list does (decision 456)
MAX_TOOLS = 5_000


async def probe_apps(resolved: Resolved, box: McpSandbox | None, timeout_s: float) -> McpAppsProbe:
    """The Apps of `resolved`'s server, from a confined start; never raises for the server's sake."""
    entry = resolved.entry
    if entry.transport != "stdio":
        return McpAppsProbe(state="remote")
    if box is None or not box.spec.available:
        return McpAppsProbe(state="no_sandbox", reason=box.spec.reason if box else "no sandbox is offered")
    confined = replace(resolved, entry=replace(entry, sandbox=True, network=False))
    probe_box = replace(box, probe=True)
    logs = Path(tempfile.mkdtemp(prefix="cashcode-probe-log-"))
    try:
        try:
            async with asyncio.timeout(timeout_s):
                return await _ask(confined, probe_box, logs / "stderr.log")
        except TimeoutError:
            return McpAppsProbe(state="unknown", reason=f"it did not answer within {timeout_s:g} s")
        except Exception as exc:  # the server's failure is the answer, not the preview's
            line = useful_line(_tail(logs / "stderr.log"))
            why = describe(exc)
            return McpAppsProbe(state="unknown", reason=f"{why}: {line}" if line and line not in why else why)
    finally:
        await asyncio.to_thread(shutil.rmtree, logs, True)


async def _ask(resolved: Resolved, box: McpSandbox, stderr_path: Path) -> McpAppsProbe:
    from app.mcp.transports import open_client

    async with open_client(
        resolved, url="", stderr_path=stderr_path, client_kwargs=_client_kwargs(), sandbox=lambda: box
    ) as client:
        listing = await list_tools(client, tool_def, MAX_TOOLS)
        pages: dict[str, apps.AppPolicy | None] = {}
        found: list[McpAppPreview] = []
        for t in listing.tools:
            uri = t.ui_resource_uri
            if uri is None:
                continue
            if uri not in pages and len(pages) < MAX_PAGES:
                pages[uri] = await _read_policy(client, uri)
            policy = pages.get(uri)
            found.append(_preview(t.name, uri, t.visibility, policy))
        return McpAppsProbe(state="listed", tool_count=len(listing.tools), apps=found)


async def _read_policy(client: Any, uri: str) -> apps.AppPolicy | None:
    """What the page declares, or None when it cannot be read (the preview says so)."""
    try:
        return apps.declared_policy(await client.read_resource(uri))
    except Exception:  # a server without resources, a page that errors: the App declares nothing
        return None


def _preview(
    tool: str, uri: str, visibility: tuple[str, ...], policy: apps.AppPolicy | None
) -> McpAppPreview:
    vis: list[Any] = [v for v in ("model", "app") if v in visibility]
    if policy is None:
        return McpAppPreview(tool=tool, uri=uri, visibility=vis, page_read=False)
    return McpAppPreview(
        tool=tool,
        uri=uri,
        visibility=vis,
        connect_domains=list(policy.connect),
        resource_domains=list(policy.resources),
        frame_domains=list(policy.frames),
        base_uri_domains=list(policy.base_uris),
        permissions=list(policy.permissions),
        dropped=list(policy.dropped),
    )


def _client_kwargs() -> dict[str, Any]:
    """The `initialize` handshake (every server era answers it), advertising the Apps extension
    as a real connection does so a server lists its App tools; no callbacks (nothing is asked)."""
    from mcp.client.extension import advertise
    from mcp.types import Implementation

    return {
        "mode": "legacy",
        "client_info": Implementation(name="CashCode", version="1"),
        "extensions": [advertise(apps.EXTENSION, apps.EXTENSION_SETTINGS)],
    }


def _tail(path: Path) -> str:
    with contextlib.suppress(OSError):
        return path.read_bytes()[-2_000:].decode("utf-8", "replace").strip()
    return ""


class Prober:
    """Probes with the app's sandbox (read at each probe: settings may change it) and bound."""

    def __init__(self, sandbox: SandboxSource | None, timeout_s: float = PROBE_TIMEOUT_S) -> None:
        self._sandbox = sandbox
        self.timeout_s = timeout_s

    async def resolved(self, resolved: Resolved) -> McpAppsProbe:
        if resolved.entry.transport != "stdio":
            return McpAppsProbe(state="remote")
        # finding out whether private namespaces work starts a child: not on the event loop
        try:
            box = await asyncio.to_thread(self._sandbox) if self._sandbox is not None else None
        except Exception as exc:  # the settings could not be read: no confinement to offer
            return McpAppsProbe(state="no_sandbox", reason=describe(exc))
        return await probe_apps(resolved, box, self.timeout_s)

    async def launch(
        self, name: str, command: str, args: Sequence[str], env: Mapping[str, str]
    ) -> McpAppsProbe:
        """A launch that is no entry yet (a bundle unpacked for its preview); `env` holds the
        real values (secrets included): they are given to the confined server only."""
        entry = ServerEntry(name=name, transport="stdio", source="user", command=command, args=tuple(args))
        return await self.resolved(Resolved(entry=entry, headers={}, env=dict(env)))
