"""Request/response models of the `skills.*` routes (docs/skills.md, /work CONTRACTS)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SourceName = Literal["builtin", "external", "user", "agent"]
NAME_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class SkillName(_Model):
    name: str = Field(pattern=NAME_PATTERN)


class SkillListQuery(_Model):
    query: str = Field(default="", max_length=500)
    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=20, ge=1, le=200)
    enabled: bool | None = None  # only enabled (true) or disabled (false) Skills
    # available: the model can use it now (enabled, dependencies present); unavailable: not
    availability: Literal["available", "unavailable"] | None = None


class SkillRefView(_Model):
    source: SourceName
    path: str


class SkillItem(_Model):
    name: str
    display_name: str | None
    description: str
    source: SourceName
    version: str | None
    tags: list[str]
    enabled: bool
    selectable: bool
    writable: bool
    sha256: str
    path: str
    shadows: list[SkillRefView]
    shadowed_by: SkillRefView | None
    missing: list[str]  # "missing dependencies": visible, not selectable
    warnings: list[str]
    score: float | None = None


class SkillProblemView(_Model):
    rule: str
    message: str


class SkillDiagnosticView(_Model):
    source: SourceName
    directory: str
    path: str
    reason: str
    problems: list[SkillProblemView]


class SkillListResult(_Model):
    items: list[SkillItem]
    total: int
    page: int
    page_size: int
    invalid: list[SkillDiagnosticView]


class SkillDetail(_Model):
    skill: SkillItem
    files: list[str]
    file_count: int
    body: str
    license: str | None
    compatibility: str | None
    allowed_tools: list[str]
    requires: dict[str, list[str]]
    metadata: dict[str, str]  # the SKILL.md `metadata` mapping, as written


class SkillContent(_Model):
    name: str
    content: str
    hash: str
    source: SourceName
    mutable: bool
    enabled: bool


class SkillCreate(_Model):
    content: str = Field(max_length=256 * 1024)


class SkillSave(_Model):
    name: str = Field(pattern=NAME_PATTERN)
    content: str = Field(max_length=256 * 1024)
    base_hash: str = Field(pattern=r"^[0-9a-f]{64}$")


class SkillSetEnabled(_Model):
    name: str = Field(pattern=NAME_PATTERN)
    enabled: bool


class SkillValidation(_Model):
    name: str
    valid: bool
    problems: list[SkillProblemView]
    warnings: list[str]


class SkillVersionView(_Model):
    id: str
    reason: str
    created_at: str
    sha256: str | None


class SkillVersionList(_Model):
    versions: list[SkillVersionView]


class SkillRollback(_Model):
    name: str = Field(pattern=NAME_PATTERN)
    version: str = Field(min_length=1, max_length=100)


class SkillImportSource(_Model):
    """A path on this machine (desktop, CLI) or uploaded bytes (browser)."""

    path: str | None = Field(default=None, max_length=4096)
    data_base64: str | None = Field(default=None, max_length=15 * 1024 * 1024)
    filename: str | None = Field(default=None, max_length=255)


class SkillImportPreview(_Model):
    valid: bool
    name: str | None
    display_name: str | None
    description: str | None
    files: list[str]
    file_count: int
    size: int
    warnings: list[str]
    problems: list[SkillProblemView]
    conflict: str | None  # a Skill or folder of that name already exists


class SkillExport(_Model):
    filename: str
    data_base64: str


class SkillInvalidRef(_Model):
    source: SourceName
    directory: str = Field(min_length=1, max_length=255)


class SkillSearchHitView(_Model):
    name: str
    source: SourceName
    description: str
    score: float


class ProposalRef(_Model):
    id: str = Field(min_length=1, max_length=64)


class ProposalView(_Model):
    id: str
    status: Literal["drafting", "pending", "approved", "rejected", "failed"]
    name: str
    content: str
    reason: str
    created_at: str


class ProposalList(_Model):
    enabled: bool
    proposals: list[ProposalView]
