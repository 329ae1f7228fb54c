"""A file → what the index stores for it: read, hashed, chunked and tokenised.

Pure (no database): an index run does this in a worker process (app/knowledge/pool.py) while
the app's process writes, and a watcher update does it in-process. Everything a worker hands
back is plain data (slotted dataclasses and tuples, not models) that app/knowledge/worker.py
writes as JSON.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.knowledge.chunker import chunk
from app.knowledge.extract import HARD_LINK, Unreadable, extract, open_flags
from app.knowledge.models import Chunk

_log = logging.getLogger(__name__)

# A chunk as stored: (start_line, end_line, heading, text, index tokens).
Row = tuple[int, int, str, str, str]

READ_CAP = 20 * 1024 * 1024  # a Job's default cap: the capability's default size cap
# One file's reading, chunking and tokenising; a file that takes longer is skipped (a guard
# behind the linear-time parsing, issue 33.6: it never holds a run or a worker for long).
FILE_SECONDS = 60.0


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
    cap: int = READ_CAP  # bytes; a file grown past it since the scan is skipped


def index_text(path: str, chunk: Chunk) -> str:
    """What the FTS index holds for a chunk: the shared tokeniser's tokens of its file name,
    heading trail and text, separated by spaces (FTS5 splits there and nowhere else)."""
    return _tokens(path, chunk.heading, chunk.text)


def prepare(path: str, state: FileState, chunks: Sequence[Chunk], deadline: float | None = None) -> Prepared:
    rows = []
    for c in chunks:
        if deadline is not None and time.monotonic() > deadline:
            raise Unreadable("took too long to read")
        rows.append((c.start_line, c.end_line, c.heading, c.text, _tokens(path, c.heading, c.text)))
    return Prepared(path, state, tuple(rows), sum(len(c.text) for c in chunks))


def read_file(path: str, cap: int) -> bytes:
    """The bytes of the regular file at `path`, read safely: the name is opened without
    following a link (a file swapped for a symbolic link since the scan is refused), without
    blocking (a file swapped for a FIFO or device is refused after the open, never waited
    on), refused if it has other names (a hard link may be a file outside the folder, as the
    read tools rule: app/tools/workspace.py) and read up to `cap` bytes (issue 33.7).
    Unreadable (with the reason) otherwise; OSError when it cannot be opened."""
    fd = os.open(path, open_flags())
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable("not a regular file")
        if st.st_nlink > 1:
            raise Unreadable(HARD_LINK)
        if st.st_size > cap:
            raise Unreadable(f"larger than {cap // (1024 * 1024)} MB")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise Unreadable(f"larger than {cap // (1024 * 1024)} MB")
    return data


def _tokens(path: str, heading: str, text: str) -> str:
    from app.search.bm25 import token_text  # lazy: `cashcode ask` only asks whether a base exists

    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return token_text(f"{name}\n{heading}\n{text}")


def read_job(job: Job) -> Outcome:
    deadline = time.monotonic() + FILE_SECONDS
    try:
        data = read_file(job.path, job.cap)
    except Unreadable as exc:
        return Failed(job.path, str(exc))
    except OSError as exc:
        return Failed(job.path, f"cannot be read ({exc.strerror or exc})")
    state = FileState(size=len(data), mtime_ns=job.mtime_ns, sha256=hashlib.sha256(data).hexdigest())
    if job.known is not None and job.known.sha256 == state.sha256:
        return Unchanged(job.path, state)
    try:
        return prepare(job.path, state, chunk(extract(Path(job.path), data), deadline), deadline)
    except Unreadable as exc:
        return Failed(job.path, str(exc))
    except Exception as exc:  # a hostile file fails itself, never the run (issue 33.7)
        _log.warning("knowledge: %s could not be read (%s)", job.path, type(exc).__name__)
        return Failed(job.path, f"could not be read ({type(exc).__name__})")


def read_jobs(jobs: Sequence[Job]) -> list[Outcome]:
    """A worker's task: several files at once (one round trip between the processes)."""
    return [read_job(j) for j in jobs]
