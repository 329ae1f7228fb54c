"""One tool call made outside a model's turn (an MCP App's own `tools/call`), under exactly the
rules a turn's call gets: the tool prepares it, the approval policy of the current settings
decides (per-tool policy, the mode, the ledger, the Sandboxed mode), the gate asks the person
when the policy says ask, and "Always allow" adds the same ledger row."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from app.api.chats import TurnEnvironment
from app.contracts.tools import ApprovalLedger, Tool, ToolContext, ToolError, ToolResult
from app.core.approvals import Allow, ApprovalGate, Deny
from app.core.tool_calls import DENIED_BY_USER


class OutsideTurnRunner:
    def __init__(
        self,
        environment: Callable[[], TurnEnvironment],
        gate: ApprovalGate,
        ledger: ApprovalLedger,
    ) -> None:
        self._environment = environment
        self._gate = gate
        self._ledger = ledger

    async def __call__(
        self, tool: Tool, args: Mapping[str, Any], *, chat_id: str, turn_id: str, call_id: str
    ) -> ToolResult:
        env = self._environment()
        ctx = ToolContext(
            workspace=env.workspace,
            chat_id=chat_id,
            turn_id=turn_id,
            call_id=call_id,
            protected_roots=env.protected_roots,
            allow_private_network=env.allow_private_network,
            private_roots=env.private_roots,
            env_allow=env.env_allow,
            sandbox=env.sandbox,
        )
        try:
            prepared = await tool.prepare(args, ctx)
            decision = env.policy(tool, prepared)
            if isinstance(decision, Deny):
                refused = f"this call is not allowed: {decision.message}"
                return ToolResult(ok=False, content=refused, denied=True)
            if isinstance(decision, Allow):
                if decision.sandboxed:
                    prepared = replace(prepared, sandboxed=True)
            else:
                answer = await self._gate.request(
                    chat_id=chat_id, turn_id=turn_id, call_id=call_id, tool=tool.name, info=decision.info
                )
                if answer in ("deny", "unattended"):
                    return ToolResult(ok=False, content=DENIED_BY_USER, denied=True)
                if answer == "always" and decision.info.grant_key is not None:
                    self._ledger.add(decision.info.grant_key, chat_id=chat_id or None)
            return await tool.execute(prepared, ctx)
        except ToolError as exc:
            return ToolResult(ok=False, content=f"Error: {exc}")
