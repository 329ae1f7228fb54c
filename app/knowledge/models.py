"""The knowledge capability's records, shared by its modules (store, indexer, search, routes)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Chunk(_Frozen):
    """A piece of a file: 1-based inclusive line range and the headings it sits under."""

    start_line: int
    end_line: int
    heading: str  # "Guide > Install > Linux" ("" when the file has no headings above it)
    text: str


class Skipped(_Frozen):
    path: str
    reason: str


class BaseStatus(_Frozen):
    name: str
    roots: tuple[str, ...]
    files: int
    chunks: int
    skipped: int
    indexed_at: str | None
    pending: bool


class Hit(_Frozen):
    """A search result; `citation` is `path:start-end`."""

    base: str
    path: str
    start_line: int
    end_line: int
    heading: str
    score: float
    text: str
    chunk_id: int

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


class Progress(_Frozen):
    """Where an index run is: files done of total and the file being read now."""

    base: str
    done: int
    total: int
    current: str
    finished: bool = False
