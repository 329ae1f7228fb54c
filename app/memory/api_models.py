"""Request/response models of the memory routes (CONTRACTS.md, section Memory)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.contracts.replies import ApiModel as _Model
from app.contracts.replies import ModelRef


class _Owned(_Model):
    """Whose memory a request is about (issue 38): none (or "default") the shared one, else an
    agent's own (`agents/<id>/MEMORY.md`, its versions and explicit memories)."""

    agent_id: str | None = Field(default=None, max_length=64)


class MemoryOwner(_Owned):
    pass


# ---- explicit memories ---------------------------------------------------------------------


class MemoryItem(_Model):
    id: str
    content: str
    tags: list[str]
    created_at: str
    updated_at: str
    asked_by: str = ""  # which chat ("chat:<id>") or command asked for it; "" from the Memory view


class MemoryItems(_Model):
    memories: list[MemoryItem]  # newest first, at most `limit`
    more: bool  # more memories match than were returned
    total: int  # all stored memories (not just the ones listed)


class MemoriesList(_Owned):
    limit: int = Field(default=100, ge=1, le=100_000)


class MemoriesAdd(_Owned):
    content: str = Field(max_length=20_000)
    tags: list[str] = Field(default_factory=list, max_length=50)
    id: str | None = None  # a pre-allocated id that a confirmation showed
    asked_by: str = Field(default="", max_length=200)  # the command or chat that asks (provenance)


class MemoriesSearch(_Owned):
    words: list[str] = Field(default_factory=list, max_length=50)
    tags: list[str] = Field(default_factory=list, max_length=50)
    limit: int = Field(default=100, ge=1, le=100_000)


class MemoriesUpdate(_Owned):
    id: str
    content: str = Field(max_length=20_000)
    tags: list[str] = Field(default_factory=list, max_length=50)
    expected_updated_at: str | None = None  # fail (conflict) when it changed since shown


class MemoriesDelete(_Owned):
    id: str
    expected_updated_at: str | None = None


class MemoryRef(_Owned):
    id: str


# ---- MEMORY.md -----------------------------------------------------------------------------


class MemoryDoc(_Model):
    text: str
    hash: str
    version_id: int | None
    path: str


class MemorySave(_Owned):
    text: str = Field(max_length=200_000)
    base_hash: str | None = None


class MemoryVersionItem(_Model):
    id: int
    author: str
    note: str
    created_at: str
    diff: str
    chars: int


class MemoryVersionList(_Model):
    versions: list[MemoryVersionItem]


class MemoryVersionRef(_Owned):
    version_id: int = Field(ge=1)


class LineText(_Owned):
    text: str = Field(max_length=500)  # the line, or a part of it


class LineSourceItem(_Model):
    author: str  # "dream" | "save_memory"
    chat_id: str
    cursors: list[int]  # the chat's message(s) it came from
    version_id: int | None  # the MEMORY.md version that wrote it (None: proposed for review)
    created_at: str


class SourcedLineItem(_Model):
    line: str
    sources: list[LineSourceItem]  # newest first; empty: written by hand


class MemoryWhy(_Model):
    lines: list[SourcedLineItem]


class ForgetResult(_Model):
    forgotten: list[str]
    version_id: int | None


class ForgottenItem(_Model):
    id: int
    line: str
    version_id: int | None  # the MEMORY.md version that removed it
    created_at: str


class ForgottenList(_Model):
    forgotten: list[ForgottenItem]  # newest first


class ForgottenRef(_Owned):
    id: int = Field(ge=1)


class MemoryVersionText(_Model):
    id: int
    text: str


# ---- SOUL.md -------------------------------------------------------------------------------


class SoulDoc(_Model):
    text: str
    is_default: bool
    max_chars: int
    notice: str | None = None  # e.g. the file on disk is too long or not UTF-8


class SoulSave(_Model):
    text: str = Field(max_length=1_000_000)  # the real limit (max_chars) gives a clear message


# ---- consolidation -------------------------------------------------------------------------


class SummaryItem(_Model):
    id: int
    chat_id: str
    content: str
    keep_from_cursor: int
    created_at: str


class SummaryList(_Model):
    latest: SummaryItem | None  # the summary in use (cumulative: it includes the earlier ones)
    count: int  # how many summaries the chat has had
    running: bool  # a consolidation of this chat is under way


class SummariesQuery(_Model):
    chat_id: str


class ImportSummary(_Model):
    chat_id: str
    content: str
    keep_from_cursor: int = Field(ge=1)


# ---- Dream ---------------------------------------------------------------------------------


class DreamRun(_Model):
    model: ModelRef | None = None  # default: the last model chosen in the app


class DreamResult(_Model):
    status: Literal["nothing_new", "no_model", "applied", "proposed", "unchanged", "failed"]
    message: str
    chats: list[str]
    version_id: int | None
    proposal_id: str | None
    diff: str


class ProposalSourceItem(_Model):
    chat_id: str
    chat_title: str  # "" when the chat has no title (or is gone)
    cursors: list[int]  # the chat's message(s) the line came from
    message: str  # the text of the first of them (an excerpt; "" when gone)
    created_at: str


class ProposedLineItem(_Model):
    line: str
    sources: list[ProposalSourceItem]


class ProposalItem(_Model):
    id: str
    diff: str
    analysis: str
    status: str
    created_at: str
    lines: list[ProposedLineItem]  # the lines it adds, each with where it came from (issue 39)


class DreamProposalList(_Model):
    proposals: list[ProposalItem]


class DreamProposalRef(_Model):
    id: str


class MemorySettings(_Model):
    consolidation_chars: int
    dream_enabled: bool
    dream_interval_minutes: int
    dream_review: bool


class MemorySettingsPatch(_Model):
    consolidation_chars: int | None = Field(default=None, ge=1_000, le=10_000_000)
    dream_enabled: bool | None = None
    dream_interval_minutes: int | None = Field(default=None, ge=1, le=1440)
    dream_review: bool | None = None


# ---- notes and todos -----------------------------------------------------------------------


class NoteCreate(_Model):
    title: str = Field(max_length=1_000)
    content: str = Field(default="", max_length=60_000)


class NoteItem(_Model):
    id: str
    title: str
    content: str
    created_at: str
    updated_at: str


class NoteList(_Model):
    notes: list[NoteItem]


class ItemRef(_Model):
    id: str


class TodoCreate(_Model):
    title: str = Field(max_length=1_000)


class TodoItem(_Model):
    id: str
    title: str
    done: bool
    created_at: str
    completed_at: str | None


class TodoList(_Model):
    todos: list[TodoItem]
