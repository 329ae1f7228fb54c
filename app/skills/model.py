"""Typed values shared by the Skills modules: manifest, package, problems and errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

SourceKind = Literal["builtin", "external", "user", "agent"]
WRITABLE_SOURCES: tuple[SourceKind, ...] = ("user", "agent")
# Lowest to highest precedence: a later source shadows an earlier one with the same name.
SOURCE_ORDER: tuple[SourceKind, ...] = ("builtin", "external", "user", "agent")

SKILL_FILE = "SKILL.md"
MAX_SKILL_MD_BYTES = 256 * 1024
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500
MAX_DISPLAY_NAME_CHARS = 80


@dataclass(frozen=True)
class SkillProblem:
    """One failed rule. `rule` is a stable id (for tests/UI), `message` is for people."""

    rule: str
    message: str


@dataclass(frozen=True)
class SkillRequirements:
    tools: tuple[str, ...] = ()
    mcp_servers: tuple[str, ...] = ()
    bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkillManifest:
    """The validated frontmatter. Unknown keys are kept in `extra` (allowed, not interpreted)."""

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()
    display_name: str | None = None
    version: str | None = None
    tags: tuple[str, ...] = ()
    triggers: tuple[str, ...] = ()
    requires: SkillRequirements = field(default_factory=SkillRequirements)
    optional: SkillRequirements = field(default_factory=SkillRequirements)
    extra_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkillDocument:
    """A parsed SKILL.md: manifest, Markdown body and the sha256 of the exact bytes."""

    manifest: SkillManifest
    body: str
    sha256: str


@dataclass(frozen=True)
class ValidSkill:
    kind: Literal["valid"]
    path: Path
    document: SkillDocument


@dataclass(frozen=True)
class InvalidSkill:
    kind: Literal["invalid"]
    path: Path
    problems: tuple[SkillProblem, ...]


ValidationResult = ValidSkill | InvalidSkill


class SkillError(Exception):
    """Base of every error the Skills package raises on purpose."""


class SkillNotFound(SkillError):
    pass


class SkillConflict(SkillError):
    """Name clash, stale hash or a concurrent change: the caller must re-read and retry."""


class SkillReadOnly(SkillError):
    """Builtin and external Skills cannot be changed from CashCode."""


class SkillInvalid(SkillError):
    def __init__(self, message: str, problems: tuple[SkillProblem, ...]) -> None:
        super().__init__(message)
        self.problems = problems


class ArchiveRejected(SkillError):
    def __init__(self, problem: SkillProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def describe_problems(problems: tuple[SkillProblem, ...]) -> str:
    return "; ".join(p.message for p in problems)
