"""The `.cashagent` manifest (issue 38 item 3): a versioned, typed, validated document.

A package is a ZIP holding `manifest.json` and the files it lists (`skills/<name>/...`), nothing
else. Every file is pinned by sha256 and size; every MCP launch spec by the sha256 of its
canonical JSON (`launch_sha256`). Unknown fields anywhere are refused (`extra="forbid"`), so a
package cannot smuggle approvals, grants or workspace trust in under a name we do not read.
A package never sets an approval mode above "Ask before writing" nor a workspace (decision 492)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.agents.model import AgentSpec
from app.support import launch_env
from app.tasks.model import ChatMode, MissedPolicy, Schedule

FORMAT: Literal[1] = 1
MANIFEST = "manifest.json"
# Modes a package may carry: anything above "Ask before writing" is the user's choice alone.
PACKAGE_MODES = ("read_only", "ask_writes")
_PACKAGE_ID = re.compile(r"[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9])?")
_SKILL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
_SERVER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,47}")
_ENV = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,100}")
_HEADER = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}")
_SHA = re.compile(r"[0-9a-f]{64}")
_REL = re.compile(r"[^\x00-\x1f\x7f\\:]{1,400}")

Sha256 = Annotated[str, Field(pattern=_SHA.pattern)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PackageFile(_Strict):
    """One file of a Skill: its path inside the Skill folder, its size and sha256."""

    path: str = Field(min_length=1, max_length=400)
    sha256: Sha256
    size: int = Field(ge=0)
    executable: bool = False

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        parts = value.split("/")
        if not _REL.fullmatch(value) or value.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"{value[:80]!r} is not a plain relative path")
        return value

    @property
    def is_script(self) -> bool:
        """A program the agent may run: under `scripts/` (run_skill_script) or marked executable."""
        return self.path.startswith("scripts/") or self.executable


class PackageSkill(_Strict):
    name: str = Field(pattern=_SKILL.pattern, max_length=64)
    files: list[PackageFile] = Field(min_length=1, max_length=500)

    @model_validator(mode="after")
    def _has_skill_md(self) -> PackageSkill:
        paths = [f.path for f in self.files]
        if "SKILL.md" not in paths:
            raise ValueError(f"the Skill {self.name!r} has no SKILL.md")
        if len({p.casefold() for p in paths}) != len(paths):
            raise ValueError(f"the Skill {self.name!r} lists a file twice")
        return self


class PackageServer(_Strict):
    """An MCP server entry as a launch spec: plain env values, secret inputs by name only."""

    name: str = Field(pattern=_SERVER.pattern, max_length=48)
    display_name: str = Field(default="", max_length=100)
    description: str = Field(default="", max_length=2000)
    transport: Literal["stdio", "http", "sse"]
    command: str = Field(default="", max_length=2000)
    args: list[Annotated[str, Field(max_length=2000)]] = Field(default_factory=list, max_length=200)
    env: dict[str, Annotated[str, Field(max_length=2000)]] = Field(default_factory=dict, max_length=100)
    url: str = Field(default="", max_length=2000)
    # Inputs the user is asked for at import (values go to the keyring, never into a package).
    secret_env: list[Annotated[str, Field(pattern=_ENV.pattern)]] = Field(
        default_factory=list, max_length=100
    )
    header_names: list[Annotated[str, Field(pattern=_HEADER.pattern)]] = Field(
        default_factory=list, max_length=32
    )
    network: bool = False  # stdio: the sandbox lets it open TCP connections
    launch_sha256: Sha256

    @field_validator("env")
    @classmethod
    def _env(cls, value: dict[str, str]) -> dict[str, str]:
        for key in value:
            if not _ENV.fullmatch(key):
                raise ValueError(f"{key[:80]!r} is not a valid environment variable name")
        return value

    @model_validator(mode="after")
    def _shape(self) -> PackageServer:
        if self.transport == "stdio" and not self.command:
            raise ValueError(f"the MCP server {self.name!r} has no command")
        if self.transport != "stdio" and not self.url.startswith(("https://", "http://")):
            raise ValueError(f"the MCP server {self.name!r} needs an http(s) URL")
        loaders = launch_env.loader_names((*self.env, *self.secret_env))
        if loaders:
            raise ValueError(
                f"the MCP server {self.name!r} sets {', '.join(loaders)}, which changes which code the"
                " program loads; a package may not"
            )
        if self.launch_sha256 != launch_digest(self.model_dump()):
            raise ValueError(f"the launch spec of the MCP server {self.name!r} does not match its sha256")
        return self


def launch_digest(server: Mapping[str, Any]) -> str:
    """The sha256 of what decides what a server entry runs or reaches (its launch spec)."""
    launch = {
        "transport": server["transport"],
        "command": server.get("command", ""),
        "args": list(server.get("args", [])),
        "env": dict(sorted(dict(server.get("env", {})).items())),
        "secret_env": sorted(server.get("secret_env", [])),
        "url": server.get("url", ""),
        "header_names": sorted(server.get("header_names", [])),
        "network": bool(server.get("network", False)),
    }
    canonical = json.dumps(launch, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class PackageTask(_Strict):
    """A scheduled task: installed paused (the user turns it on, decision 494)."""

    name: str = Field(min_length=1, max_length=80)
    prompt: str = Field(min_length=1, max_length=20_000)
    schedule: Schedule
    approval_mode: Literal["read_only", "ask_writes"] = "read_only"
    chat_mode: ChatMode = "same_chat"
    missed_policy: MissedPolicy = "run_once"


class PackageKnowledgeBase(_Strict):
    """A knowledge base by name only: never the indexed data or the exporter's folders."""

    name: str = Field(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")


class PackageManifest(_Strict):
    format: Literal[1]
    id: str = Field(pattern=_PACKAGE_ID.pattern, max_length=100)
    version: int = Field(ge=1, le=1_000_000)
    agent: AgentSpec
    skills: list[PackageSkill] = Field(default_factory=list, max_length=100)
    mcp_servers: list[PackageServer] = Field(default_factory=list, max_length=50)
    knowledge_bases: list[PackageKnowledgeBase] = Field(default_factory=list, max_length=50)
    tasks: list[PackageTask] = Field(default_factory=list, max_length=50)

    @model_validator(mode="after")
    def _rules(self) -> PackageManifest:
        mode = self.agent.approval_mode
        if mode is not None and mode not in PACKAGE_MODES:
            raise ValueError(
                f"it asks for the approval mode {mode!r}; a package may ask for at most"
                " 'ask_writes' (Ask before writing) — the user chooses anything above"
            )
        if self.agent.workspace is not None:
            raise ValueError("it names a workspace folder; the user chooses the workspace")
        for what, names in (
            ("Skill", [s.name for s in self.skills]),
            ("MCP server", [s.name.casefold() for s in self.mcp_servers]),
            ("knowledge base", [k.name for k in self.knowledge_bases]),
            ("task", [t.name.casefold() for t in self.tasks]),
        ):
            if len(set(names)) != len(names):
                raise ValueError(f"it lists a {what} twice")
        return self

    def file_paths(self) -> dict[str, PackageFile]:
        """Every file the ZIP must hold, by its path in the ZIP."""
        return {f"skills/{s.name}/{f.path}": f for s in self.skills for f in s.files}
