"""Index runs: a base's roots → discovery → changed files re-chunked, one file per transaction.

Blocking code (file reads, PDF parsing, SQLite): callers run it off the event loop. A run
marks its base `pending` first and clears it last, so a run cut short (crash, kill -9) is
found at the next start and resumed: files already committed are skipped by the quick scan
(size + mtime equal, or the same SHA-256 where they differ), the rest are indexed.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.knowledge.chunker import chunk
from app.knowledge.discover import Discovery, Found
from app.knowledge.extract import Unreadable, extract
from app.knowledge.models import Progress, Skipped
from app.knowledge.store import FileState, KnowledgeStore, Prepared, prepare

_log = logging.getLogger(__name__)

OnProgress = Callable[[Progress], None]

# Files written per transaction in a run (each file whole): fewer commits, and a kill -9 loses
# at most one batch of work.
BATCH_CHARS = 1_000_000
BATCH_FILES = 100


@dataclass(frozen=True)
class RunResult:
    indexed: int
    unchanged: int
    removed: int
    skipped: int


class Indexer:
    def __init__(
        self, store: KnowledgeStore, private_roots: Callable[[], Sequence[Path]], size_cap: int
    ) -> None:
        self._store = store
        self._private = private_roots
        self._cap = size_cap
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def discovery(self, name: str) -> Discovery:
        return Discovery([Path(p) for p in self._store.roots(name)], self._private(), self._cap)

    def _lock(self, name: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(name, threading.Lock())

    def run(self, name: str, on_progress: OnProgress, *, force: bool = False) -> RunResult:
        """Bring the base's index up to date with its roots (`force`: re-read every file)."""
        with self._lock(name):
            self._store.set_pending(name, True)
            scan = self.discovery(name).scan()
            # Streamed against the records: only changed files' states are kept (a start-up
            # scan of 10,000 unchanged files then allocates no record per file; bench README).
            gone, known, new = self._store.compare(name, {f.path: f for f in scan.files})
            removed = 0
            for path in sorted(gone):
                removed += self._store.remove_file(name, path)
            todo = [f for f in scan.files if force or f.path in known or f.path in new]
            skipped = list(scan.skipped)
            indexed = 0
            total = len(todo)
            batch: list[Prepared] = []
            batch_chars = 0
            with _Writer(self._store, name) as writer:
                for done, item in enumerate(todo):
                    on_progress(Progress(base=name, done=done, total=total, current=item.path))
                    outcome = self._prepare(name, item, None if force else known.get(item.path))
                    if isinstance(outcome, Skipped):
                        skipped.append(outcome)
                    elif isinstance(outcome, Prepared):
                        batch.append(outcome)
                        batch_chars += outcome.chars
                        indexed += 1
                        if len(batch) >= BATCH_FILES or batch_chars >= BATCH_CHARS:
                            writer.put(batch)
                            batch, batch_chars = [], 0
                if batch:
                    writer.put(batch)
            self._store.replace_skipped(name, skipped)
            self._store.set_pending(name, False)
            on_progress(Progress(base=name, done=total, total=total, current="", finished=True))
            return RunResult(indexed, len(scan.files) - indexed, removed, len(skipped))

    def update_path(self, name: str, path: Path) -> None:
        """One changed path (watcher): re-index it, drop it, or record why it is skipped."""
        with self._lock(name):
            key = str(path)
            verdict = self.discovery(name).check(path)
            if verdict is None or isinstance(verdict, Skipped):
                self._store.remove_file(name, key)
                if verdict is None:
                    self._store.set_skipped(name, None, key)
                else:
                    self._store.set_skipped(name, verdict, verdict.path)
                return
            outcome = self._index_file(name, verdict, self._store.file_state(name, key))
            if isinstance(outcome, Skipped):
                self._store.set_skipped(name, outcome, key)

    def move_path(self, name: str, old: Path, new: Path) -> None:
        """A rename inside the base: move the chunks if the new path is indexable, else drop."""
        with self._lock(name):
            verdict = self.discovery(name).check(new)
            if isinstance(verdict, Found) and self._store.move_file(name, str(old), str(new)):
                pass
            else:
                self._store.remove_file(name, str(old))
        self.update_path(name, new)  # a new mtime (and maybe content) is recorded

    def _index_file(self, name: str, item: Found, known: FileState | None) -> bool | Skipped:
        """True: chunks written; False: content unchanged (only its size/mtime recorded)."""
        outcome = self._prepare(name, item, known)
        if isinstance(outcome, Prepared):
            self._store.put_files(name, [outcome])
            return True
        return outcome

    def _prepare(self, name: str, item: Found, known: FileState | None) -> Prepared | bool | Skipped:
        """The file's chunks and tokens; False: content unchanged (its new size/mtime is
        recorded now); Skipped: it cannot give text (its old chunks are dropped now)."""
        try:
            data = Path(item.path).read_bytes()
        except OSError as exc:
            self._store.remove_file(name, item.path)
            return Skipped(path=item.path, reason=f"cannot be read ({exc.strerror or exc})")
        state = FileState(size=len(data), mtime_ns=item.mtime_ns, sha256=hashlib.sha256(data).hexdigest())
        if known is not None and known.sha256 == state.sha256:
            if known != state:
                self._store.touch_file(name, item.path, state)
            return False
        try:
            chunks = chunk(extract(Path(item.path), data))
        except Unreadable as exc:
            self._store.remove_file(name, item.path)
            return Skipped(path=item.path, reason=str(exc))
        return prepare(item.path, state, chunks)


class _Writer:
    """Writes a run's batches on a thread of its own while the next files are read, chunked
    and tokenised: SQLite (FTS5 building its index) releases the GIL, so on two cores the
    writes overlap the Python work. Batches are written in order, each in one transaction; at
    most `DEPTH` wait, so memory stays bounded. Leaving the block waits for every batch and
    re-raises the first write error (a failed write stops the run, as before)."""

    DEPTH = 2

    def __init__(self, store: KnowledgeStore, name: str) -> None:
        self._store = store
        self._name = name
        self._queue: queue.Queue[list[Prepared] | None] = queue.Queue(self.DEPTH)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="kb-writer", daemon=True)

    def __enter__(self) -> _Writer:
        self._thread.start()
        return self

    def put(self, batch: list[Prepared]) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(batch)

    def _work(self) -> None:
        while (batch := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self._store.put_files(self._name, batch)
                except BaseException as exc:  # handed to the run's thread
                    self._error = exc

    def __exit__(self, *exc: object) -> None:
        self._queue.put(None)
        self._thread.join()
        if self._error is not None and exc[0] is None:
            raise self._error

