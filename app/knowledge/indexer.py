"""Index runs: a base's roots → discovery → changed files re-chunked, one file per transaction.

Blocking code (file reads, PDF parsing, SQLite): callers run it off the event loop; a run
reads its files in worker processes (app/knowledge/pool.py) and writes them here, in order. A run
marks its base `pending` first and clears it last, so a run cut short (crash, kill -9) is
found at the next start and resumed: files already committed are skipped by the quick scan
(size + mtime equal, or the same SHA-256 where they differ), the rest are indexed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from app.knowledge import pool
from app.knowledge.discover import Discovery, Found
from app.knowledge.models import Progress, Skipped
from app.knowledge.prepare import Failed, FileState, Job, Outcome, Prepared, Unchanged, read_job
from app.knowledge.store import KnowledgeStore

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
        self,
        store: KnowledgeStore,
        private_roots: Callable[[], Sequence[Path]],
        size_cap: int,
        *,
        workers: int | None = None,
    ) -> None:
        """`workers`: processes that read files during a run (None: `pool.default_workers()`,
        0: read in this process)."""
        self._store = store
        self._workers = pool.default_workers() if workers is None else workers
        self._private = private_roots
        self._cap = size_cap
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def discovery(self, name: str) -> Discovery:
        return Discovery([Path(p) for p in self._store.roots(name)], self._private(), self._cap)

    def _lock(self, name: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(name, threading.Lock())

    def run(
        self, name: str, on_progress: OnProgress, *, force: bool = False, start_wait_ms: int | None = None
    ) -> RunResult:
        """Bring the base's index up to date with its roots (`force`: re-read every file).
        `start_wait_ms`: how long the run's first write may wait for the database before
        StoreBusy (a route's run answers `database_busy` as other routes do; issue 33.10);
        None: the full busy timeout. Once started, a run's writes wait the full timeout."""
        with self._lock(name):
            with self._store.waiting_at_most(start_wait_ms) if start_wait_ms is not None else nullcontext():
                self._store.set_pending(name, True)
            scan = self.discovery(name).scan()
            # Streamed against the records: only changed files' states are kept (a start-up
            # scan of 10,000 unchanged files then allocates no record per file; bench README).
            gone, known, new = self._store.compare(name, {f.path: f for f in scan.files})
            removed = 0
            for path in sorted(gone):
                removed += self._store.remove_file(name, path)
            todo = [f for f in scan.files if force or f.path in known or f.path in new]
            jobs = [Job(f.path, f.mtime_ns, None if force else known.get(f.path), self._cap) for f in todo]
            skipped = list(scan.skipped)
            indexed = 0
            total = len(todo)
            batch: list[Prepared] = []
            batch_chars = 0
            read = pool.outcomes(jobs, [f.size for f in todo], workers=self._workers)
            for done, (job, outcome) in enumerate(zip(jobs, read, strict=True)):
                on_progress(Progress(base=name, done=done, total=total, current=job.path))
                result = self._settle(name, job, outcome)
                if isinstance(result, Skipped):
                    skipped.append(result)
                elif isinstance(result, Prepared):
                    batch.append(result)
                    batch_chars += result.chars
                    indexed += 1
                    if len(batch) >= BATCH_FILES or batch_chars >= BATCH_CHARS:
                        self._store.put_files(name, batch)
                        batch, batch_chars = [], 0
            if batch:
                self._store.put_files(name, batch)
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
        job = Job(item.path, item.mtime_ns, known, self._cap)
        result = self._settle(name, job, read_job(job))
        if isinstance(result, Prepared):
            self._store.put_files(name, [result])
            return True
        return result

    def _settle(self, name: str, job: Job, outcome: Outcome) -> Prepared | bool | Skipped:
        """The store's side of a read file: an unchanged file's new size/mtime is recorded
        (False), a file without text loses its old chunks (Skipped); Prepared is to be written."""
        if isinstance(outcome, Unchanged):
            if job.known != outcome.state:
                self._store.touch_file(name, job.path, outcome.state)
            return False
        if isinstance(outcome, Failed):
            self._store.remove_file(name, job.path)
            return Skipped(path=outcome.path, reason=outcome.reason)
        return outcome
