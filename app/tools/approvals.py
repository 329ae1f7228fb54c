"""Approval policy: may a prepared call run now, must the user be asked, or is it refused?

Order of rules (first match wins):
1. per-tool policy "never"                          -> deny
2. mode "read_only" and the call is not auto-safe   -> deny (grants and "always" do not lift it;
   the one exception: a web tool's call to a host with a standing `web_host` grant is allowed,
   since reading a page the user already trusts changes nothing — see docs/decisions.md)
3. per-tool policy "always"                         -> allow (policy_always)
4. a standing grant matches the call's grant key    -> allow (granted)
5. per-tool policy "ask" (explicit)                 -> ask, even for read-only tools and safe
   commands (the user asked to be asked)
6. mode "sandboxed", a sandbox available and a call the tool can run confined
   (`prepared.confinable`: a program it starts, a write inside the workspace) -> allow, confined
   (sandboxed). With no sandbox available the mode asks as "ask_writes" does.
7. no policy entry: read-only tool -> allow (read_only); a call the tool prepared with
   `approval=None` (a vetted safe command) -> allow (safe_command); mode "autonomous" -> allow
   (autonomous); otherwise ask.

`policies` holds only the user's overrides; a tool without an entry gets rule 6.
"Auto-safe" = a call the tool prepared with `approval=None` (per the contract in base.py that
means "nothing to ask": a read-only tool on an ordinary path, exec of a vetted safe command). A
read-only tool that prepared an approval (the app's own data folder, a hard link) asks.
Grants match exactly: `ledger.has(GrantKey)` compares kind, the full argv tuple and workspace.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from app.contracts.tools import ApprovalInfo, ApprovalLedger, PreparedCall, Tool, summary

Mode = Literal["autonomous", "sandboxed", "ask_writes", "read_only"]
Policy = Literal["always", "ask", "never"]
AllowReason = Literal["read_only", "safe_command", "granted", "policy_always", "autonomous", "sandboxed"]
DEFAULT_MODE: Mode = "ask_writes"


@dataclass(frozen=True)
class Allow:
    reason: AllowReason
    kind: Literal["allow"] = "allow"
    sandboxed: bool = False  # run it confined (the Sandboxed mode allowed only that)


@dataclass(frozen=True)
class Ask:
    approval: ApprovalInfo
    kind: Literal["ask"] = "ask"


@dataclass(frozen=True)
class Deny:
    message: str  # reported to the model as the tool result
    kind: Literal["deny"] = "deny"


Decision = Allow | Ask | Deny


def decide(
    tool: Tool,
    prepared: PreparedCall,
    *,
    mode: Mode,
    policies: Mapping[str, Policy],
    ledger: ApprovalLedger,
    sandbox_available: bool = False,
) -> Decision:
    policy = policies.get(tool.name)
    # A read-only tool may still prepare an approval (reading the app's own data, a hard link):
    # then it is treated like any call that asks.
    auto_safe = prepared.approval is None
    if policy == "never":
        return Deny(f"The tool '{tool.name}' is disabled by the user's settings (policy: never).")
    if mode == "read_only" and not auto_safe:
        if _is_web_host(prepared) and _granted(prepared, ledger):
            return Allow("granted")
        return Deny(_read_only_refusal(tool, prepared))
    if policy == "always":
        return Allow("policy_always")
    if _granted(prepared, ledger):
        return Allow("granted")
    if policy == "ask":
        return Ask(prepared.approval or _generic_approval(tool, prepared))
    if mode == "sandboxed" and sandbox_available and prepared.confinable:
        return Allow("sandboxed", sandboxed=True)
    if prepared.approval is None:
        return Allow("read_only" if tool.read_only else "safe_command")
    if mode == "autonomous":
        return Allow("autonomous")
    return Ask(prepared.approval)


def _read_only_refusal(tool: Tool, prepared: PreparedCall) -> str:
    """Why read-only mode refused the call, without claiming what the call would do: an MCP
    tool is refused as a kind (its server's read-only mark is a hint nobody verified)."""
    key = prepared.approval.grant_key if prepared.approval else None
    if key is not None and key.kind == "mcp":
        marked = prepared.approval is not None and prepared.approval.summary is not None and (
            prepared.approval.summary.code == "mcp_tool_read_only"
        )
        hint = " (its server marks it read-only, but that mark is not verified)" if marked else ""
        return (
            f"The app is in read-only mode, which allows no MCP tools; '{tool.name}' was not run{hint}. "
            "Ask the user to switch modes if this is needed."
        )
    return (
        f"The app is in read-only mode; '{tool.name}' would change something, so it was not run. "
        "Ask the user to switch modes if this is needed."
    )


def _is_web_host(prepared: PreparedCall) -> bool:
    key = prepared.approval.grant_key if prepared.approval else None
    return key is not None and key.kind == "web_host"


def _granted(prepared: PreparedCall, ledger: ApprovalLedger) -> bool:
    key = prepared.approval.grant_key if prepared.approval else None
    return key is not None and ledger.has(key)


def _generic_approval(tool: Tool, prepared: PreparedCall) -> ApprovalInfo:
    """For calls that normally need no approval but the user set the tool to "ask"."""
    try:
        detail = json.dumps(dict(prepared.args), ensure_ascii=False, indent=2, sort_keys=True)
    except (TypeError, ValueError):
        detail = repr(dict(prepared.args))
    shown = summary("use_tool", detail, tool=tool.name)
    return ApprovalInfo(title=f"Use {tool.name}", detail=detail, summary=shown)
