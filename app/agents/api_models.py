"""Request/response models of the `agents.*` routes (pydantic, extra="forbid", frozen)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.agents.model import AgentSpec
from app.contracts.replies import ApiModel, SharedReply


class AgentRef(ApiModel):
    agent_id: str = Field(min_length=1, max_length=64)


class AgentInput(ApiModel):
    spec: AgentSpec


class AgentEdit(ApiModel):
    agent_id: str = Field(min_length=1, max_length=64)
    spec: AgentSpec


class AgentDuplicate(ApiModel):
    agent_id: str = Field(min_length=1, max_length=64)
    name: str | None = Field(default=None, min_length=1, max_length=64)  # None: "<name> copy"


class ChatAgent(ApiModel):
    """Which agent a chat belongs to: changeable until its first message is sent."""

    chat_id: str = Field(min_length=1, max_length=64)
    agent_id: str = Field(min_length=1, max_length=64)


class AgentView(ApiModel):
    id: str
    spec: AgentSpec
    builtin: bool  # the default agent: today's behaviour, not editable or removable
    created_at: str
    updated_at: str


class AgentList(SharedReply):
    """Kept by the capability until an agent changes (or the last used one does): its JSON form is
    made once, so listing 50 agents costs what listing one does (issue 38 benchmark)."""

    agents: list[AgentView]
    last_used: str  # the agent a new chat starts with (the one of the chat assigned last)


# ---- agent packages (.cashagent, issue 38 item 3) ---------------------------------------------

CapabilityKind = Literal["tool", "host", "program", "schedule", "approval_mode", "secret_input"]


class AgentCapability(ApiModel):
    """One thing an imported agent could do or reach. `key` names it across versions; a change
    of `fingerprint` (a script's sha256, a launch spec's) is a change the user is asked about."""

    kind: CapabilityKind
    key: str
    label: str  # what the preview shows (argv, env names, a schedule, a host)
    fingerprint: str


class PackageSecretInput(ApiModel):
    server: str
    name: str  # an env variable or header name; the value is asked for, never imported
    kind: Literal["env", "header"]


class PackagePreview(ApiModel):
    package_id: str
    version: int
    digest: str  # sha256 of its manifest: `agents.import` installs only what was previewed
    name: str
    emoji: str
    persona: str
    approval_mode: str  # "read_only", "ask_writes" or "app" (the app's mode)
    skills: list[str]  # carried Skills
    mcp_servers: list[str]  # carried MCP server entries
    knowledge_bases: list[str]  # names only; the user adds folders
    tasks: list[str]
    capabilities: list[AgentCapability]
    installed_version: int | None  # an update of an installed agent
    agent_id: str | None  # that agent
    changes: list[AgentCapability]  # new or changed capabilities (all of them for a fresh install)
    secret_inputs: list[PackageSecretInput]


_UPLOAD = 15 * 1024 * 1024  # a 10 MiB package in base64


class PackagePath(ApiModel):
    """A .cashagent on this machine (CLI, desktop) or its bytes (a browser's pick or drop)."""

    path: str | None = Field(default=None, min_length=1, max_length=4096)
    data_base64: str | None = Field(default=None, max_length=_UPLOAD)


class PackageImport(ApiModel):
    path: str | None = Field(default=None, min_length=1, max_length=4096)
    data_base64: str | None = Field(default=None, max_length=_UPLOAD)
    digest: str = Field(pattern=r"^[0-9a-f]{64}$")  # from the preview the user confirmed
    # Values for secret inputs, by "server/NAME"; left out: left unset (asked later).
    secrets: dict[str, str] = Field(default_factory=dict, max_length=200)


class PackageInstalled(ApiModel):
    agent: AgentView
    version: int
    unset_secrets: list[PackageSecretInput]  # inputs with no value given: the server waits for them


class PackageExport(ApiModel):
    agent_id: str = Field(min_length=1, max_length=64)
    path: str | None = Field(default=None, min_length=1, max_length=4096)  # None: returned as bytes
    package_id: str | None = Field(default=None, max_length=100)  # None: from the agent's name
    version: int | None = Field(default=None, ge=1, le=1_000_000)  # None: 1, or the installed one


class PackageExported(ApiModel):
    path: str | None
    filename: str  # `<package id>-<version>.cashagent`
    data_base64: str | None  # the file, when no path was given (the browser downloads it)
    package_id: str
    version: int
    digest: str
    files: int
