"""What a turn may use, set by the chat's agent (issue 38): the per-turn agent scope.

The composition layer (app/api/chats.py) fills `TurnSpec.scope` once per turn from the chat's
agent; every capability filters by it in one place (Skills, MCP servers, knowledge bases, the
tool list, memory). Nothing here knows how agents are stored (app/agents/).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

DEFAULT_AGENT_ID = "default"

ApprovalModeName = Literal["autonomous", "sandboxed", "ask_writes", "read_only"]
MemoryScope = Literal["shared", "own"]


@dataclass(frozen=True)
class Allowed:
    """Everything of a kind (`names` None) or exactly the named ones."""

    names: frozenset[str] | None = None

    @classmethod
    def only(cls, names: Iterable[str]) -> Allowed:
        return cls(frozenset(names))

    @property
    def everything(self) -> bool:
        return self.names is None

    def allows(self, name: str) -> bool:
        return self.names is None or name in self.names


ALL = Allowed()


@dataclass(frozen=True)
class AgentScope:
    """The chat's agent as a turn sees it. The default (everything allowed, SOUL.md, the app's
    own model and approval mode) is today's behaviour."""

    agent_id: str = DEFAULT_AGENT_ID
    persona: str | None = None  # None: SOUL.md (or the built-in persona)
    skills: Allowed = ALL
    mcp_servers: Allowed = ALL
    knowledge_bases: Allowed = ALL
    tools: Allowed = ALL  # the tools Settings → Tools lists (built-in and capabilities' own)
    memory: MemoryScope = "shared"
    provider_id: str | None = None  # the agent's default model (None: the app's last model)
    model: str | None = None
    approval_mode: ApprovalModeName | None = None  # None: the app's approval mode
    workspace: Path | None = None  # None: the app's workspace


DEFAULT_SCOPE = AgentScope()


@runtime_checkable
class AgentDirectory(Protocol):
    """What the composition layer asks of the agents capability (blocking: call it on the
    store lane). An unknown agent id raises the capability's not-found failure."""

    def seen_agent(self, agent_id: str) -> bool:
        """Known to this process already (no database work; `has_agent` asks the database)."""
        ...

    def has_agent(self, agent_id: str) -> bool: ...

    def scope_of_chat(self, chat_id: str) -> AgentScope: ...

    def agents_of_chats(self, chat_ids: Iterable[str]) -> dict[str, str]: ...

    def own_memory_chats(self, chat_ids: Iterable[str]) -> set[str]:
        """Of these chats, those whose agent keeps its own memory (Dream leaves them out)."""
        ...

    def assign(self, chat_id: str, agent_id: str, *, stored: bool) -> None:
        """`stored` False: a chat reserved in memory, whose agent is stored with its first turn
        (no database work now)."""
