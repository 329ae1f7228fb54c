"""The store lane: database work of the event loop runs on a few worker threads.

The loop serves every route, every event and every Stop, so it never waits for SQLite: a route
awaits `lane.read(fn)` or `lane.write(fn)` and the loop goes on meanwhile. Each job is bounded
twice: from the moment it is queued it waits at most `wait_ms` in all (the queue, our lock,
SQLite's busy timeout; then StoreBusy → `database_busy`), and at most `capacity` jobs may be
queued or running (past that StoreBusy at once). Writes have ONE thread, as the database has one
writer connection: they run in the order they were asked for (a turn's usage rows before its
messages). Reads have their own threads, which use per-thread read-only connections
(app/store/db.py): a write waiting for another program never holds them up.

While writes fail as busy, the lane probes the write lock every `probe_every_s` and reports the
change both ways through `on_busy` (the app publishes a `database_status` event; the UI shows
"the database is busy — retrying…" until it clears).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from app.contracts.errors import DATABASE_BUSY_MESSAGE, DatabaseBusy
from app.store.db import Database
from app.store.errors import StoreBusy, classify_sqlite_error

T = TypeVar("T")

# How long a route's database work may wait before the user hears "the database is busy".
ROUTE_WAIT_MS = 1000
# How long a stopped turn's partial answer may wait: Stop must answer at once (the turn stays
# retryable when it could not be stored).
STOP_WAIT_MS = 300
READ_THREADS = 2
WRITE_THREADS = 1
CAPACITY = 32  # queued or running jobs per lane (reads, writes): past that, busy at once
PROBE_EVERY_S = 1.0

_log = logging.getLogger(__name__)


class _Pool:
    """A thread pool with a bounded number of jobs in it (queued or running)."""

    def __init__(self, name: str, threads: int, capacity: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
        self._capacity = capacity
        self._jobs = 0
        self._lock = threading.Lock()

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        with self._lock:
            if self._jobs >= self._capacity:
                raise StoreBusy(DATABASE_BUSY_MESSAGE)
            self._jobs += 1
        try:
            future = self._executor.submit(fn)
        except BaseException:
            self._release()
            raise
        future.add_done_callback(lambda _: self._release())
        return future

    def _release(self) -> None:
        with self._lock:
            self._jobs -= 1

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=False)


class StoreLane:
    def __init__(
        self,
        db: Database,
        *,
        on_busy: Callable[[bool], None] | None = None,
        read_threads: int = READ_THREADS,
        write_threads: int = WRITE_THREADS,
        capacity: int = CAPACITY,
        probe_every_s: float = PROBE_EVERY_S,
    ) -> None:
        self._db = db
        self._on_busy = on_busy
        self._reads = _Pool("store-read", read_threads, capacity)
        self._writes = _Pool("store-write", write_threads, capacity)
        self._probe_every_s = probe_every_s
        self._busy = False
        self._probe: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def busy(self) -> bool:
        """Writes failed as busy and the write lock has not been seen free since."""
        return self._busy

    async def read(self, fn: Callable[[], T], *, wait_ms: int = ROUTE_WAIT_MS) -> T:
        """`fn()` on a read thread. Reads never clear or set the busy state: in WAL mode they
        succeed while another program holds the write lock."""
        return await self._run(self._reads, fn, wait_ms, write=False)

    async def write(self, fn: Callable[[], T], *, wait_ms: int = ROUTE_WAIT_MS) -> T:
        """`fn()` on a write thread; StoreBusy when the database stayed locked for `wait_ms`."""
        return await self._run(self._writes, fn, wait_ms, write=True)

    def write_later(self, fn: Callable[[], object], what: str) -> None:
        """Bookkeeping nobody waits for (usage rows): queued on a write thread; a failure is
        logged, never raised."""
        loop = asyncio.get_running_loop()

        def done(future: Future[object]) -> None:
            exc = future.exception()
            if exc is not None:
                _log.warning("could not store %s: %s", what, exc)
                if _is_busy(exc) and not loop.is_closed():
                    loop.call_soon_threadsafe(self._mark_busy)

        try:
            self._writes.submit(self._bounded(fn, ROUTE_WAIT_MS)).add_done_callback(done)
        except StoreBusy:
            _log.warning("could not store %s: the store lane is full", what)
            self._mark_busy()

    async def _run(self, pool: _Pool, fn: Callable[[], T], wait_ms: int, *, write: bool) -> T:
        if self._closed:
            raise StoreBusy(DATABASE_BUSY_MESSAGE)
        try:
            future = pool.submit(self._bounded(fn, wait_ms))
        except StoreBusy:
            self._mark_busy()
            raise
        try:
            # Cancelling the caller (a Stop) does not wait for the thread; the job ends within
            # its own wait.
            result = await asyncio.wrap_future(future)
        except Exception as exc:
            if _is_busy(exc):
                if write:
                    self._mark_busy()
                if isinstance(exc, sqlite3.Error):
                    raise StoreBusy(DATABASE_BUSY_MESSAGE) from exc
            raise
        if write:
            self._mark_free()
        return result

    def _bounded(self, fn: Callable[[], T], wait_ms: int) -> Callable[[], T]:
        deadline = time.monotonic() + wait_ms / 1000

        def job() -> T:
            left_ms = int((deadline - time.monotonic()) * 1000)
            if left_ms <= 0 < wait_ms:  # its whole wait went by in the queue
                raise StoreBusy(DATABASE_BUSY_MESSAGE)
            with self._db.waiting_at_most(max(0, left_ms)):
                return fn()

        return job

    def _mark_busy(self) -> None:
        if not self._busy:
            self._busy = True
            self._tell(True)
        if self._probe is None and not self._closed:
            self._probe = asyncio.get_running_loop().create_task(self._watch(), name="store-busy-probe")

    def _mark_free(self) -> None:
        if self._busy:
            self._busy = False
            self._tell(False)

    def _tell(self, busy: bool) -> None:
        if self._on_busy is not None:
            try:
                self._on_busy(busy)
            except Exception:  # a surface failing to hear it must not fail the store call
                _log.warning("database busy listener failed", exc_info=True)

    async def _watch(self) -> None:
        """Probe the write lock until it is free again (then report it)."""
        try:
            while self._busy and not self._closed:
                await asyncio.sleep(self._probe_every_s)
                try:
                    await self._run(self._writes, self._db.probe_write, 100, write=True)
                except DatabaseBusy:
                    continue
                except Exception:  # the probe only watches: a real failure shows on real work
                    _log.warning("database probe failed", exc_info=True)
                    return
        finally:
            self._probe = None

    async def aclose(self) -> None:
        """Let running jobs end (each within its wait), then stop the threads."""
        self._closed = True
        probe = self._probe
        if probe is not None:
            probe.cancel()
            await asyncio.gather(probe, return_exceptions=True)
        await asyncio.to_thread(self._reads.shutdown)
        await asyncio.to_thread(self._writes.shutdown)


def _is_busy(exc: BaseException) -> bool:
    if isinstance(exc, DatabaseBusy):
        return True
    return isinstance(exc, sqlite3.OperationalError) and isinstance(
        classify_sqlite_error(exc, "", "write"), DatabaseBusy
    )
