"""The tool registry seen through the core's interfaces (ToolBox, ApprovalPolicy)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from app.api import models as m
from app.core.approvals import Allow, Ask, Deny, PolicyDecision
from app.core.context import ApprovalPolicy
from app.core.messages import ToolSpec
from app.settings.user_settings import ApprovalMode, ToolPolicy
from app.tools import approvals as tool_approvals
from app.tools.base import ApprovalLedger, PreparedCall, Tool

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

    def infos(self, policies: Mapping[str, ToolPolicy]) -> list[m.ToolInfo]:
        infos = []
        for name in self._registry.names:
            tool = self._registry.entry(name)  # listing imports no tool code
            assert tool is not None
            default: ToolPolicy = "always" if tool.read_only else "ask"
            infos.append(
                m.ToolInfo(
                    name=name,
                    description=tool.description,
                    read_only=tool.read_only,
                    policy=policies.get(name, default),
                )
            )
        return infos

    def policy(
        self,
        *,
        mode: ApprovalMode,
        policies: Mapping[str, ToolPolicy],
        ledger: ApprovalLedger,
    ) -> ApprovalPolicy:
        frozen = dict(policies)

        def decide(tool: Tool, prepared: PreparedCall) -> PolicyDecision:
            decision = tool_approvals.decide(tool, prepared, mode=mode, policies=frozen, ledger=ledger)
            if isinstance(decision, tool_approvals.Allow):
                return Allow()
            if isinstance(decision, tool_approvals.Ask):
                return Ask(decision.approval)
            return Deny(decision.message)

        return decide
