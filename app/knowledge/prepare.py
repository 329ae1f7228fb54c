"""A file → what the index stores for it: read, hashed, chunked and tokenised.

Pure (no database): an index run does this in a worker process (app/knowledge/pool.py) while
the app's process writes, and a watcher update does it in-process. Everything a worker hands
back is plain data (slotted dataclasses and tuples, not models) that app/knowledge/worker.py
writes as JSON.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.knowledge.chunker import chunk
from app.knowledge.extract import Unreadable, extract
from app.knowledge.models import Chunk

# A chunk as stored: (start_line, end_line, heading, text, index tokens).
Row = tuple[int, int, str, str, str]


@dataclass(frozen=True, slots=True)  # a scan holds one per changed file
class FileState:
    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True, slots=True)
class Prepared:
    """A file ready to be written: its chunks, each with its index tokens."""

    path: str
    state: FileState
    rows: tuple[Row, ...]
    chars: int


@dataclass(frozen=True, slots=True)
class Unchanged:
    """Same content as indexed (SHA-256 equal): only its size/mtime may need recording."""

    path: str
    state: FileState


@dataclass(frozen=True, slots=True)
class Failed:
    """The file gives no text (unreadable, damaged PDF): its old chunks are dropped."""

    path: str
    reason: str


Outcome = Prepared | Unchanged | Failed


@dataclass(frozen=True, slots=True)
class Job:
    """One file to read; `known` is its record when it was indexed before (None: read it)."""

    path: str
    mtime_ns: int
    known: FileState | None


def index_text(path: str, chunk: Chunk) -> str:
    """What the FTS index holds for a chunk: the shared tokeniser's tokens of its file name,
    heading trail and text, separated by spaces (FTS5 splits there and nowhere else)."""
    return _tokens(path, chunk.heading, chunk.text)


def prepare(path: str, state: FileState, chunks: Sequence[Chunk]) -> Prepared:
    rows = tuple(
        (c.start_line, c.end_line, c.heading, c.text, _tokens(path, c.heading, c.text)) for c in chunks
    )
    return Prepared(path, state, rows, sum(len(c.text) for c in chunks))


def _tokens(path: str, heading: str, text: str) -> str:
    from app.search.bm25 import token_text  # lazy: `cashcode ask` only asks whether a base exists

    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return token_text(f"{name}\n{heading}\n{text}")


def read_job(job: Job) -> Outcome:
    try:
        data = Path(job.path).read_bytes()
    except OSError as exc:
        return Failed(job.path, f"cannot be read ({exc.strerror or exc})")
    state = FileState(size=len(data), mtime_ns=job.mtime_ns, sha256=hashlib.sha256(data).hexdigest())
    if job.known is not None and job.known.sha256 == state.sha256:
        return Unchanged(job.path, state)
    try:
        chunks = chunk(extract(Path(job.path), data))
    except Unreadable as exc:
        return Failed(job.path, str(exc))
    return prepare(job.path, state, chunks)


def read_jobs(jobs: Sequence[Job]) -> list[Outcome]:
    """A worker's task: several files at once (one round trip between the processes)."""
    return [read_job(j) for j in jobs]
