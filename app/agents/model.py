"""The typed, validated agent spec: what a user sets in the Agents view or the CLI, and what an
agent package will carry (issue 38 item 3): plain data, no ids, no paths of the app's own."""

from __future__ import annotations

import re
from pathlib import Path, PurePath
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.contracts.agents import DEFAULT_AGENT_ID, AgentScope, Allowed

MAX_PERSONA = 20_000  # as SOUL.md (app/core/prompt.py MAX_SOUL_CHARS)
MAX_LISTED = 500
ApprovalMode = Literal["read_only", "ask_writes", "sandboxed", "autonomous"]
MemoryScopeName = Literal["shared", "own"]

# The names each list takes, by the rules of what it names (a Skill, an MCP server, a knowledge
# base, a tool); checked here so a bad list is refused before anything is stored.
_SKILL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")  # app/skills/api_models.py
_SERVER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,47}")  # app/mcp/config.py NAME_RE
_KB = re.compile(r"[^\x00-\x1f\x7f]{1,64}")  # app/knowledge/store.py check_name
_TOOL = re.compile(r"[A-Za-z0-9_-]{1,128}")
_VISIBLE_LINE = re.compile(r"[^\x00-\x1f\x7f]*\S[^\x00-\x1f\x7f]*")

Name = Annotated[str, Field(min_length=1, max_length=64)]
Listed = Annotated[list[Annotated[str, Field(min_length=1, max_length=128)]], Field(max_length=MAX_LISTED)]


def _check(names: list[str] | None, rule: re.Pattern[str], what: str) -> list[str] | None:
    if names is None:
        return None
    for name in names:
        if not rule.fullmatch(name):
            raise ValueError(f"{name[:64]!r} is not a valid {what} name")
    return list(dict.fromkeys(names))


class AgentSpec(BaseModel):
    """One agent as the user chose it. A list left out (None) means "all of them"; an empty
    list means "none"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    emoji: str = Field(default="", max_length=16)
    persona: str = Field(default="", max_length=MAX_PERSONA)  # "": SOUL.md, as the default agent
    provider_id: str | None = Field(default=None, max_length=100)
    model: str | None = Field(default=None, max_length=200)
    skills: Listed | None = None
    mcp_servers: Listed | None = None
    knowledge_bases: Listed | None = None
    tools: Listed | None = None
    approval_mode: ApprovalMode | None = None  # None: the app's approval mode
    workspace: str | None = Field(default=None, max_length=4096)  # None: the app's workspace
    memory: MemoryScopeName = "shared"

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        value = value.strip()
        if not _VISIBLE_LINE.fullmatch(value):
            raise ValueError("the agent name must be visible text on one line")
        return value

    @field_validator("emoji")
    @classmethod
    def _emoji(cls, value: str) -> str:
        if any(ch in value for ch in "\r\n\t"):
            raise ValueError("the icon must be one short line (an emoji)")
        return value.strip()

    @field_validator("skills")
    @classmethod
    def _skills(cls, value: list[str] | None) -> list[str] | None:
        return _check(value, _SKILL, "Skill")

    @field_validator("mcp_servers")
    @classmethod
    def _servers(cls, value: list[str] | None) -> list[str] | None:
        return _check(value, _SERVER, "MCP server")

    @field_validator("knowledge_bases")
    @classmethod
    def _bases(cls, value: list[str] | None) -> list[str] | None:
        return _check(value, _KB, "knowledge base")

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: list[str] | None) -> list[str] | None:
        return _check(value, _TOOL, "tool")

    @field_validator("workspace")
    @classmethod
    def _workspace(cls, value: str | None) -> str | None:
        if value is not None and not PurePath(value).is_absolute():
            raise ValueError("the workspace must be an absolute path")
        return value

    @model_validator(mode="after")
    def _model_pair(self) -> AgentSpec:
        if (self.provider_id is None) != (self.model is None):
            raise ValueError("give both provider_id and model, or neither")
        return self


class AgentRecord(BaseModel):
    """A stored agent: its id (the default agent's is `default`) and spec."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    spec: AgentSpec
    created_at: str
    updated_at: str
    builtin: bool = False  # the default agent: today's behaviour, not editable or removable

    def scope(self) -> AgentScope:
        s = self.spec

        def allowed(names: list[str] | None) -> Allowed:
            return Allowed() if names is None else Allowed.only(names)

        return AgentScope(
            agent_id=self.id,
            persona=s.persona.strip() or None,
            skills=allowed(s.skills),
            mcp_servers=allowed(s.mcp_servers),
            knowledge_bases=allowed(s.knowledge_bases),
            tools=allowed(s.tools),
            memory=s.memory,
            provider_id=s.provider_id,
            model=s.model,
            approval_mode=s.approval_mode,
            workspace=Path(s.workspace) if s.workspace else None,
        )


DEFAULT_AGENT = AgentRecord(
    id=DEFAULT_AGENT_ID,
    spec=AgentSpec(name=DEFAULT_AGENT_ID, emoji=""),
    created_at="",
    updated_at="",
    builtin=True,
)
