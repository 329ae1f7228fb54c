"""How a capability (MCP, memory, Skills, traces, …) plugs into turns and the route table.

A capability is a small service class built in `bootstrap.py` and handed to the app as a
`Capability`. The core loop never learns about it: it sees more `Tool`s (through the per-turn
`TurnToolBox`), more system-prompt text, and a hook after each turn. Routes are the
capability's own handlers; their request/response types are declared statically in a
`ROUTE_TYPES` table that `app/api/route_types.py` merges (TypeScript generation reads it).

Every hook has a no-op default, so a capability implements only what it needs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from app.contracts.messages import Message, ToolSpec
from app.contracts.tools import Tool
from app.contracts.turn import ToolBox, TurnSpec, TurnStore

Handler = Callable[[Any], Awaitable[BaseModel]]


@dataclass(frozen=True)
class ListedTool:
    """A tool a capability can offer the model, as Settings → Tools lists it (with a per-tool
    policy: the approval policy applies to every tool by name)."""

    spec: ToolSpec
    read_only: bool

    @classmethod
    def of(cls, tool: type[Tool] | Tool) -> ListedTool:
        spec = ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters)
        return cls(spec, tool.read_only)


class Capability:
    """Base class with no-op hooks. Subclasses override what they use."""

    name: str = "capability"

    def routes(self) -> Mapping[str, Handler]:
        """Handlers for routes declared in this capability's ROUTE_TYPES table."""
        return {}

    def toolset(self, spec: TurnSpec) -> ToolBox | None:
        """Extra tools offered to the model in this turn. `specs()` is asked before every model
        call, so tools activated during the turn (e.g. `mcp_prepare`) appear at the next step."""
        return None

    def prompt_section(self, spec: TurnSpec) -> str | None:
        """Text appended to the turn's system prompt (None or "" for nothing)."""
        return None

    def listed_tools(self) -> Sequence[ListedTool]:
        """Every tool `toolset` can offer, for Settings → Tools (tools that exist only per chat,
        like an MCP server's own tools, are managed where they come from). Static: must not
        start, scan or connect anything."""
        return ()

    def wrap_store(self, store: TurnStore) -> TurnStore:
        """Replace how history is loaded/stored for turns (e.g. consolidation summaries)."""
        return store

    def after_turn(self, spec: TurnSpec, messages: Sequence[Message]) -> None:
        """Called on the core loop right after a completed turn was stored. Must be quick:
        schedule slow work as a background task. Errors are logged, never raised to the turn."""

    async def start(self) -> None:
        """Long-lived surfaces (desktop, serve) start background work here."""

    async def aclose(self) -> None:
        """Release connections, child processes, tasks."""


class TurnToolBox:
    """The tools of one turn: the built-in catalog plus each capability's toolset.

    Names are unique: the first toolset that offers a name wins (built-ins first), so a
    capability can never shadow a built-in tool.
    """

    def __init__(self, parts: Sequence[ToolBox]) -> None:
        self._parts = tuple(parts)

    def specs(self) -> Sequence[ToolSpec]:
        seen: set[str] = set()
        out: list[ToolSpec] = []
        for part in self._parts:
            for spec in part.specs():
                if spec.name not in seen:
                    seen.add(spec.name)
                    out.append(spec)
        return out

    def get(self, name: str) -> Tool | None:
        for part in self._parts:
            tool = part.get(name)
            if tool is not None:
                return tool
        return None


class DeferredCapability(Capability):
    """A capability that only serves routes (no tools, prompt text or hooks), built on the first
    route lookup. Processes that never call its routes (`cashcode ask`) never import its code
    or its pydantic models (SPEC S14 start-up budget)."""

    def __init__(self, name: str, build: Callable[[], Capability]) -> None:
        self.name = name
        self._build = build
        self._built: Capability | None = None

    def get(self) -> Capability:
        if self._built is None:
            self._built = self._build()
        return self._built

    def routes(self) -> Mapping[str, Handler]:
        return self.get().routes()

    async def aclose(self) -> None:
        if self._built is not None:
            await self._built.aclose()
