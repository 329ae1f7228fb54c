"""The tool registry seen through the core's interfaces (ToolBox, ApprovalPolicy)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from app.api import models as m
from app.contracts.capability import Capability
from app.contracts.messages import ToolSpec
from app.contracts.tools import ApprovalLedger, PreparedCall, SandboxSpec, Tool
from app.core.approvals import Allow, Ask, Deny, PolicyDecision
from app.core.context import ApprovalPolicy
from app.settings.user_settings import ApprovalMode, ToolPolicy
from app.tools import approvals as tool_approvals

if TYPE_CHECKING:
    from app.tools.registry import ToolRegistry


class ToolCatalog:
    """Implements core's ToolBox over a ToolRegistry and builds the approval policy."""

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry

    def specs(self) -> Sequence[ToolSpec]:
        return self._registry.specs()

    def get(self, name: str) -> Tool | None:
        return self._registry.get(name)

    def infos(
        self, policies: Mapping[str, ToolPolicy], capabilities: Sequence[Capability] = ()
    ) -> list[m.ToolInfo]:
        """The built-in tools, then each capability's, by name once (as in a turn, the first
        one offering a name wins). Listing imports no tool code and starts nothing."""
        listed: list[tuple[str, ToolSpec, bool]] = []
        for name in self._registry.names:
            entry = self._registry.entry(name)
            assert entry is not None
            listed.append((entry.group, entry.spec, entry.read_only))
        for cap in capabilities:
            listed += [(cap.name, t.spec, t.read_only) for t in cap.listed_tools()]
        infos: dict[str, m.ToolInfo] = {}
        for group, spec, read_only in listed:
            default: ToolPolicy = "always" if read_only else "ask"
            infos.setdefault(
                spec.name,
                m.ToolInfo(
                    name=spec.name,
                    description=spec.description,
                    read_only=read_only,
                    policy=policies.get(spec.name, default),
                    group=group,
                ),
            )
        return list(infos.values())

    def policy(
        self,
        *,
        mode: ApprovalMode,
        policies: Mapping[str, ToolPolicy],
        ledger: ApprovalLedger,
        sandbox: SandboxSpec | None = None,
    ) -> ApprovalPolicy:
        frozen = dict(policies)
        available = sandbox is not None and sandbox.available
        # Sandboxed mode without a sandbox asks as "ask_writes" does, and every question says why.
        unconfined = f"\n(not sandboxed: {sandbox.reason})" if sandbox is not None and not available else ""

        def decide(tool: Tool, prepared: PreparedCall) -> PolicyDecision:
            decision = tool_approvals.decide(
                tool, prepared, mode=mode, policies=frozen, ledger=ledger, sandbox_available=available
            )
            if isinstance(decision, tool_approvals.Allow):
                return Allow(sandboxed=decision.sandboxed)
            if isinstance(decision, tool_approvals.Ask):
                info = decision.approval
                if unconfined and prepared.confinable:
                    info = replace(info, detail=info.detail + unconfined)
                return Ask(info)
            return Deny(decision.message)

        return decide
