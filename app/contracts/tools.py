"""The tool interface. Core knows tools only through these types.

A call goes through two phases so approvals show exactly what will run:
`prepare` validates arguments and resolves everything (real paths, the absolute argv),
then — after the approval policy allowed it — `execute` runs exactly that prepared call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from app.contracts.events import ApprovalSummary, ApprovalSummaryCode
from app.contracts.messages import ToolSpec

# exec: exact argv; mcp: (server, tool); skill_script: (skill, path, digest); web_host: (host,)
GrantKind = Literal["exec", "mcp", "skill_script", "web_host"]

# The one output budget (characters) of a tool result the model sees. Paging tools make pages
# that fit it and say how to get the next; the loop cuts anything longer, with a marker
# (docs/decisions.md, "Tool output budget"). Roughly 5k tokens.
TOOL_OUTPUT_BUDGET = 20_000


@dataclass(frozen=True)
class SandboxSpec:
    """The Sandboxed approval mode's confinement of the programs tools start (app/sandbox)."""

    available: bool
    reason: str  # available: what confines ("Landlock ABI 7 (files and TCP)"); else why not
    hidden: tuple[Path, ...] = ()  # never readable, even inside the workspace (app folders, secrets)
    readable: tuple[Path, ...] = ()  # extra read-only folders (Settings)
    # A private network and /tmp for each program too (user namespaces allowed, or root);
    # False: Landlock alone holds (app/sandbox/launch.py).
    namespaces: bool = False


@dataclass(frozen=True)
class ToolContext:
    """Per-call environment. `workspace` is already a resolved real path."""

    workspace: Path
    chat_id: str = ""
    turn_id: str = ""
    protected_roots: tuple[Path, ...] = ()  # Skill roots: generic write/exec refuse them
    allow_private_network: bool = False  # SSRF guard override from settings
    # The app's own folders (data, config, logs, cache). When the workspace contains one of them
    # (e.g. workspace = home), tools ask before reading or listing inside it; walks skip it.
    private_roots: tuple[Path, ...] = ()
    env_allow: tuple[str, ...] = ()  # extra environment names commands may see (Settings)
    output_budget: int = TOOL_OUTPUT_BUDGET  # set by the loop from LoopDeps.max_tool_output_chars
    sandbox: SandboxSpec | None = None  # set in the Sandboxed approval mode only


@dataclass(frozen=True)
class GrantKey:
    """What an "Always allow" stores. For exec: the exact resolved argv (no prefixes)."""

    kind: GrantKind
    key: tuple[str, ...]
    workspace: str = ""


@dataclass(frozen=True)
class Grant:
    id: str
    kind: GrantKind
    key: tuple[str, ...]
    workspace: str
    created_at: str  # ISO-8601 UTC
    chat_id: str | None = None
    enabled: bool = True  # False: imported, shown in the ledger, covers nothing until enabled


@dataclass(frozen=True)
class ApprovalInfo:
    """Shown to the user before a call runs."""

    title: str  # short, e.g. "Run a command"
    detail: str  # exactly what will run / be written
    argv: tuple[str, ...] | None = None
    grant_key: GrantKey | None = None  # None: "Always allow" is not offered
    summary: ApprovalSummary | None = None  # `detail` as a code and parameters, for the UI


def summary(code: ApprovalSummaryCode, exact: str = "", **params: object) -> ApprovalSummary:
    """An approval's summary; parameter values are shown as text."""
    return ApprovalSummary(code=code, params={k: str(v) for k, v in params.items()}, exact=exact)


@dataclass(frozen=True)
class PreparedCall:
    tool: str
    args: Mapping[str, Any]
    approval: ApprovalInfo | None  # None: nothing to ask (read-only or safe command)
    state: Any = None  # tool-private, e.g. the resolved argv and cwd
    # The tool can run this call inside the sandbox with no more rights than the policy gives
    # (a program it starts); the Sandboxed mode then runs it without asking.
    confinable: bool = False
    sandboxed: bool = False  # set by the tool-call runner: the policy allowed it only confined


@dataclass(frozen=True)
class ToolResult:
    ok: bool
    content: str  # what the model sees (capped, with a truncation marker)
    display: str | None = None  # fuller text for the UI; None = same as content
    truncated: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # What history keeps instead of `content` once the turn is stored (e.g. a receipt for a
    # large body the model needs only in this turn). None: history keeps `content`.
    history_content: str | None = None
    # The call never ran because the user (or the approval policy) refused it: the UI says
    # "Denied" and never shows `content`, which is written for the model.
    denied: bool = False
    # A confined run that the sandbox seems to have blocked (network, a write outside): what to
    # ask so it may run once more, without the sandbox. The runner asks; the result stands if not.
    escalation: ApprovalInfo | None = None
    sandbox: str = ""  # the Sandboxed mode: "sandboxed" or "not sandboxed: <why>" (cards, CLI)


class ToolError(Exception):
    """A failure reported back to the model as an error result (the turn goes on)."""


class Tool(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[dict[str, Any]]
    read_only: ClassVar[bool] = False

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    @abstractmethod
    async def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> PreparedCall:
        """Validate and resolve. Raise ToolError for bad arguments or refused paths."""

    @abstractmethod
    async def execute(self, call: PreparedCall, ctx: ToolContext) -> ToolResult:
        """Run the prepared call. Must stop promptly (and kill children) when cancelled."""


class ApprovalLedger(Protocol):
    """Standing "Always allow" grants (SPEC S4.3–4.4); persisted by app/store."""

    def has(self, key: GrantKey) -> bool: ...

    def add(self, key: GrantKey, *, chat_id: str | None = None, enabled: bool = True) -> Grant: ...

    def find(self, key: GrantKey) -> Grant | None: ...

    def list(self) -> list[Grant]: ...

    def enable(self, grant_id: str) -> bool: ...

    def revoke(self, grant_id: str) -> bool: ...
