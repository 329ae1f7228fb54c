"""How a capability (MCP, memory, Skills, traces, …) plugs into the app.

A capability is one package with a `plugin.py` whose `PLUGIN` (a `CapabilityPlugin`) declares
everything it brings: how to build its `Capability` from the host's services, the module with
its route table (`ROUTE_TYPES`: name -> (request, response) models), the module with its event
types (`EVENTS`), its database migrations, its settings section and which capabilities' hooks
run before its own. The composition root holds one list of plugins (app/api/plugins.py).

The built `Capability` is what turns see: more `Tool`s (through the per-turn `TurnToolBox`),
more system-prompt text, a history store wrapper and a hook after each turn; its routes are its
own handlers. The core loop never learns about it. Every hook has a no-op default.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from app.contracts.messages import Message, ToolSpec
from app.contracts.tools import Tool
from app.contracts.turn import ToolBox, TurnSpec, TurnStore

Handler = Callable[[Any], Awaitable[BaseModel]]

# One schema step of a capability: an SQL script or a function given the connection (inside
# the migration transaction). Steps are applied in order and recorded per capability
# (app/store/db.py); never edit a released step, append a new one.
Migration = str | Callable[[sqlite3.Connection], None]

HostT = TypeVar("HostT")


@dataclass(frozen=True)
class SettingsSection:
    """A capability's own settings: `sections.<key>` of the one settings file, validated by the
    pydantic model `model()` returns (imported on first use, not at start-up)."""

    key: str
    model: Callable[[], type[BaseModel]]


@dataclass(frozen=True)
class CapabilityPlugin(Generic[HostT]):
    """Everything a capability declares; the app reads nothing else of it.

    - `build(host)`: the capability from the host's services (imports its code lazily);
    - `routes`: module name of its `ROUTE_TYPES` table (imported on the first lookup of a route
      that is not a core one, so `cashcode ask` never pays for it);
    - `events`: module name of its `EVENTS` tuple (TypeScript generation and docs);
    - `migrations`: its schema steps, in order;
    - `settings`: its settings section;
    - `after`: capabilities whose hooks (tools, prompt sections, store wrapper, after-turn,
      start) come before this one's; the order is these dependencies, then the name;
    - `deferred`: routes only (no tools, prompt or hooks): built on its first route call.
    """

    name: str
    build: Callable[[HostT], Capability]
    routes: str | None = None
    events: str | None = None
    migrations: tuple[Migration, ...] = ()
    settings: SettingsSection | None = None
    after: tuple[str, ...] = ()
    deferred: bool = False


@dataclass(frozen=True)
class TurnOverrides:
    """What a capability that started a turn fixes for it instead of the user's settings:
    a scheduled task runs with its own approval mode and workspace (nobody is there to ask,
    and the task's choice must hold whatever the app's mode is now)."""

    approval_mode: Literal["autonomous", "sandboxed", "ask_writes", "read_only"] | None = None
    workspace: Path | None = None
    # Who asks in the Inbox for this turn's questions (issue 35): the task's name and id.
    asker: str | None = None
    task_id: str | None = None


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

    def turn_context(self, spec: TurnSpec) -> str | None:
        """Data for this turn (passages of an @-selected knowledge base), sent as a user-role
        block just before the user's message and never stored. Text the app did not write
        (file contents, search results) goes here, framed as data, never into
        `prompt_section`: the system message holds only the app's own instructions."""
        return None

    def listed_tools(self) -> Sequence[ListedTool]:
        """Every tool `toolset` can offer, for Settings → Tools (tools that exist only per chat,
        like an MCP server's own tools, are managed where they come from). Static: must not
        start, scan or connect anything."""
        return ()

    def turn_overrides(self, spec: TurnSpec) -> TurnOverrides | None:
        """Settings this capability fixes for a turn it started (asked once, when the turn
        starts; the first capability that answers wins). None: the user's settings."""
        return None

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
