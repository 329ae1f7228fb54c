"""What a preview made before a server's first connect says about its MCP Apps (issue 37 item 3).

Shared by the mcp routes (the confirm step of a user-added server) and the mcp_catalog previews
(bundle, Registry plan, catalog plan and install), so it lives in the vocabulary. The probe
itself is app/mcp/app_probe.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from app.contracts.replies import ApiModel

PROBE_TIMEOUT_S = 20.0
# Tests shorten the bound (a server that hangs at start): seconds, 1-120.
TIMEOUT_VAR = "CASHCODE_MCP_PROBE_TIMEOUT_S"


def probe_timeout(env: Mapping[str, str]) -> float:
    try:
        value = float(env.get(TIMEOUT_VAR, "") or PROBE_TIMEOUT_S)
    except ValueError:
        return PROBE_TIMEOUT_S
    return min(max(value, 1.0), 120.0)


# listed: the server was started once in the sandbox and listed its tools (`tools` may be empty:
#   no Apps);
# unknown: it was started but did not answer in time or failed (`reason` says why);
# remote: an HTTP/SSE server, not contacted before the user confirms;
# no_sandbox: no sandbox here, and a server is never run unconfined for a preview;
# not_installed: its package is downloaded only by the install.
AppsProbeState = Literal["listed", "unknown", "remote", "no_sandbox", "not_installed"]


class McpAppPreview(ApiModel):
    """One tool that has an App, with what its `ui://` page declared."""

    tool: str
    uri: str
    visibility: list[Literal["model", "app"]]
    connect_domains: list[str] = Field(default_factory=list)
    resource_domains: list[str] = Field(default_factory=list)
    frame_domains: list[str] = Field(default_factory=list)
    base_uri_domains: list[str] = Field(default_factory=list)
    permissions: list[str] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list)  # declared values refused (not plain origins)
    # False: the page could not be read (the App declares nothing the host would grant)
    page_read: bool = True


class McpAppsProbe(ApiModel):
    state: AppsProbeState
    reason: str = ""  # English, for unknown / no_sandbox (the UI words the state itself)
    tool_count: int = 0  # tools the server listed (state "listed")
    apps: list[McpAppPreview] = Field(default_factory=list)


def apps_lines(probe: McpAppsProbe) -> list[str]:
    """The preview's Apps lines in plain English (the CLI prints them)."""
    if probe.state == "remote":
        return ["Apps: listed after the first connect (a remote server is not contacted before you confirm)"]
    if probe.state == "no_sandbox":
        return [f"Apps: not inspected: no sandbox here ({probe.reason})"]
    if probe.state == "not_installed":
        return ["Apps: listed once installed (the install downloads the package, then asks its server)"]
    if probe.state == "unknown":
        return [f"Apps: not known until the first connect ({probe.reason})"]
    if not probe.apps:
        return [f"Apps: none (the server lists {probe.tool_count} tools, none with an App)"]
    lines = [f"Apps ({len(probe.apps)}):"]
    for app in probe.apps:
        only = " (App only)" if app.visibility == ["app"] else ""
        domains = [*app.connect_domains, *app.resource_domains, *app.frame_domains, *app.base_uri_domains]
        lines.append(f"  {app.tool}{only}: {app.uri}")
        if not app.page_read:
            lines.append("    its page could not be read: it gets no network and no permission")
            continue
        lines.append(f"    domains: {', '.join(dict.fromkeys(domains)) or 'nothing (no network)'}")
        lines.append(f"    permissions: {', '.join(app.permissions) or 'none'}")
        if app.dropped:
            lines.append(f"    refused (not plain origins): {', '.join(app.dropped)}")
    return lines
