"""The tools a chat's agent allows (issue 38): the one place the tool list is cut to the
agent's `tools` set. Only tools Settings → Tools lists are subject to it; an MCP server's own
tools follow the agent's MCP servers (app/mcp), not this list."""

from __future__ import annotations

from collections.abc import Sequence

from app.contracts.agents import Allowed
from app.contracts.messages import ToolSpec
from app.contracts.tools import Tool
from app.contracts.turn import ToolBox


class AgentToolBox:
    """`inner` without the listed tools the agent does not allow: neither offered nor callable
    (a call by name gets the same "unknown tool" answer as a name that never existed)."""

    def __init__(self, inner: ToolBox, allowed: Allowed, listed: frozenset[str]) -> None:
        self._inner = inner
        self._hidden = frozenset(n for n in listed if not allowed.allows(n))

    def specs(self) -> Sequence[ToolSpec]:
        return [s for s in self._inner.specs() if s.name not in self._hidden]

    def get(self, name: str) -> Tool | None:
        return None if name in self._hidden else self._inner.get(name)
