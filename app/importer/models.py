"""Request/response models of the `import.*` routes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SourceKind = Literal["cashcode", "cdy_agent"]
ItemStatus = Literal[
    "imported",  # done now
    "would_import",  # preview: would be imported
    "already_imported",  # an earlier run imported it (recorded source id)
    "conflict",  # something with the same name/id exists: never overwritten
    "invalid",  # the source item failed validation
    "unavailable",  # the capability it needs is not in this build
    "failed",  # the target refused it (the message says why)
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ImportPath(_Model):
    path: str = Field(min_length=1, max_length=4096)


class ImportItem(_Model):
    kind: str  # chat, message, summary, memory_file, soul, memory, note, todo, approval, skill, mcp_server
    name: str  # what the user recognises: a chat title, a Skill name, a file
    status: ItemStatus
    reason: str = ""


class ImportReport(_Model):
    source: SourceKind
    path: str
    dry_run: bool
    items: list[ImportItem]
    imported: int  # items imported (or, in a preview, that would be)
    skipped: int  # everything else
