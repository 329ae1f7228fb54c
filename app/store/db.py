"""The SQLite database: WAL, foreign keys, forward migrations (SPEC S10.2).

One `Database` per process. Writes go through ONE connection shared across threads
(`check_same_thread=False`), serialised by an RLock, so a transaction is never interleaved with
another thread's statements. Reads outside a transaction use a read-only connection of the
calling thread (WAL: a reader sees the last commit and never waits for a writer), so a write
waiting for another program's lock, or a long transaction of ours, never holds up a read.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.contracts.capability import Migration
from app.contracts.errors import DATABASE_BUSY_MESSAGE
from app.store.errors import SchemaTooNew, StoreBusy, StoreError, classify_sqlite_error
from app.store.migrations import LEGACY_STEPS, MIGRATIONS, run_script

Params = Sequence[object]

# PRAGMA user_version of a database whose versions are kept per part in `schema_parts`
# (1..8 were the old single list, converted on open; larger values are a newer layout).
PARTS_LAYOUT = 100
STORE_PART = "store"
# How long code on the event loop waits for the database (our lock, then SQLite's busy
# timeout) before it answers "the database is busy": the loop serves every route and every
# Stop, so another program holding the database must never freeze it for the full timeout.
LOOP_WAIT_MS = 500
_NO_READERS = ("", ":memory:")  # a private in-memory database has no file a reader could open


@dataclass(frozen=True)
class SchemaPart:
    """A capability's schema steps, recorded under its name."""

    name: str
    steps: tuple[Migration, ...]


# How long close() waits for reads running in other threads (bounded: a stuck read must not
# hold the app's exit).
_CLOSE_WAIT_S = 10.0

class Database:
    def __init__(
        self,
        path: Path | str,
        *,
        busy_timeout_ms: int = 10_000,
        migrations: Sequence[Migration] = MIGRATIONS,
        parts: Sequence[SchemaPart] = (),
    ) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._busy_ms = int(busy_timeout_ms)
        self._set_busy_ms = int(busy_timeout_ms)  # what the connection has now
        self._loop_wait_ms = min(LOOP_WAIT_MS, self._busy_ms)
        self._opening = True  # migrations at open may wait the full timeout
        self._depth = 0  # nesting of transaction() on the owning thread
        self._parts = (SchemaPart(STORE_PART, tuple(migrations)), *parts)
        self._local = threading.local()  # per thread: its reader, a wait chosen by the caller
        self._readers: list[tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = []
        self._readers_lock = threading.Lock()
        # Reads running now in any thread: close() waits for them (closing a connection another
        # thread is reading with crashes sqlite; seen as a segfault when the app closed during a
        # task scheduler's tick in a worker thread).
        self._active_reads = 0
        self._reads_done = threading.Condition(self._readers_lock)
        self._use_readers = str(path) not in _NO_READERS
        self._closed = False
        self._trace: Callable[[str], None] | None = None
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves (no implicit transactions).
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
            )
        except sqlite3.Error as exc:
            raise classify_sqlite_error(exc, self.path, "open") from exc
        self._conn.row_factory = sqlite3.Row
        try:
            self._open(busy_timeout_ms)
        except BaseException:
            self._conn.close()
            raise
        self._opening = False

    # ---- opening & migrations ---------------------------------------------------------------

    def _open(self, busy_timeout_ms: int) -> None:
        conn = self._conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            # Read the header and the schema before changing anything: a garbage, damaged or
            # newer file stays untouched.
            version = self._user_version()
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            raise classify_sqlite_error(exc, self.path, "read") from exc
        self._refuse_newer(version)
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"the database at {self.path} cannot use WAL journaling (got {mode!r})")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
            self._refuse_foreign_objects()
        except sqlite3.DatabaseError as exc:
            raise classify_sqlite_error(exc, self.path, "prepare") from exc

    def _refuse_foreign_objects(self) -> None:
        """Triggers, views and indexes the app did not create are refused: a planted trigger
        runs inside the app's own writes (it deleted a chat mid-turn in an attack)."""
        recorded = {str(r[0]) for r in self._conn.execute("SELECT name FROM schema_parts")}
        if recorded - {p.name for p in self._parts}:
            return  # opened with fewer parts than made it (a tool, a test): cannot judge the rest
        expected = expected_objects(tuple(self._parts))
        found = self._conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view', 'index')"
            " AND sql IS NOT NULL"
        ).fetchall()
        foreign = [f"{row[0]} {row[1]!r}" for row in found if expected.get((row[0], row[1])) != row[2]]
        if foreign:
            more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
            listed = ", ".join(sorted(foreign)[:5]) + more
            raise StoreError(
                f"the database at {self.path} holds schema objects CashCode did not create ({listed}); "
                "it was left unchanged. Remove them with the sqlite3 tool (DROP TRIGGER/VIEW/INDEX) "
                "or restore a backup, then start CashCode again"
            )

    def _user_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def _refuse_newer(self, version: int) -> None:
        if version > PARTS_LAYOUT or (version > len(LEGACY_STEPS) and version != PARTS_LAYOUT):
            raise SchemaTooNew(
                f"the database at {self.path} has schema version {version}, newer than this "
                "CashCode supports; it was left unchanged — please update CashCode"
            )

    def _migrate(self) -> None:
        with self.transaction() as conn:
            # Re-read inside the write lock: another process may have migrated meanwhile.
            version = self._user_version()
            self._refuse_newer(version)
            if version != PARTS_LAYOUT:
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_parts"
                    " (name TEXT PRIMARY KEY, version INTEGER NOT NULL)"
                )
                for name, old in _legacy_versions(version).items():
                    _record(conn, name, old)
                conn.execute(f"PRAGMA user_version = {PARTS_LAYOUT}")
            versions = {str(r[0]): int(r[1]) for r in conn.execute("SELECT name, version FROM schema_parts")}
            for part in self._parts:
                have = versions.get(part.name, 0)
                if have > len(part.steps):
                    raise SchemaTooNew(
                        f"the database at {self.path} has version {have} of the {part.name!r} tables, "
                        f"newer than this CashCode supports ({len(part.steps)}); it was left "
                        "unchanged — please update CashCode"
                    )
                for done, step in enumerate(part.steps[have:], start=have + 1):
                    if isinstance(step, str):
                        run_script(conn, step)
                    else:
                        step(conn)
                    _record(conn, part.name, done)

    # ---- use --------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        """The version of the store's own tables."""
        return self.part_version(STORE_PART)

    @contextmanager
    def waiting_at_most(self, wait_ms: int) -> Iterator[None]:
        """On this thread, wait at most `wait_ms` for the database (our lock, then SQLite's busy
        timeout) before StoreBusy. The store lane sets it for each job (app/store/lane.py)."""
        before = getattr(self._local, "wait_ms", None)
        self._local.wait_ms = max(0, int(wait_ms))
        try:
            yield
        finally:
            self._local.wait_ms = before

    def _wanted_ms(self) -> int:
        """How long this caller may wait: its own bound (store lane), else at most LOOP_WAIT_MS on
        an event loop, else the full busy timeout (worker threads, opening)."""
        if self._opening:
            return self._busy_ms
        chosen: int | None = getattr(self._local, "wait_ms", None)
        if chosen is not None:
            return min(chosen, self._busy_ms)
        return self._loop_wait_ms if _on_event_loop() else self._busy_ms

    @contextmanager
    def _held(self) -> Iterator[None]:
        """The writer connection's lock, waiting at most `_wanted_ms()` for a thread of ours
        that holds it, then the same again for another process (SQLite's busy timeout); past
        that StoreBusy."""
        wanted = self._wanted_ms()
        if not self._lock.acquire(timeout=wanted / 1000 if wanted < self._busy_ms else -1):
            raise StoreBusy(DATABASE_BUSY_MESSAGE)
        self._local.writing = getattr(self._local, "writing", 0) + 1
        try:
            if wanted != self._set_busy_ms:
                self._conn.execute(f"PRAGMA busy_timeout = {int(wanted)}")
                self._set_busy_ms = wanted
            yield
        finally:
            self._local.writing -= 1
            self._lock.release()

    def part_version(self, name: str) -> int:
        with self._held():
            row = self._conn.execute("SELECT version FROM schema_parts WHERE name = ?", (name,)).fetchone()
            return int(row[0]) if row is not None else 0

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any exception.

        Nested use on the same thread joins the outer transaction (all-or-nothing together).
        """
        with self._held():
            if self._depth > 0:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                cause = classify_sqlite_error(exc, self.path, "write")
                if isinstance(cause, StoreBusy):
                    raise cause from exc
                raise
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._depth = 0
                # SQLite may already have rolled back by itself (e.g. disk full).
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self._conn.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A connection for reads: one snapshot for every statement of the block.

        Inside a transaction of this thread it is the writer (the reads see its own writes);
        otherwise this thread's read-only connection, which waits for nobody in WAL mode."""
        if not self._use_readers or getattr(self._local, "writing", 0) > 0:
            with self._held():
                yield self._conn
            return
        conn = self._reader()
        if conn.in_transaction:  # nested in a read block of this thread: the same snapshot
            yield conn
            return
        with self._readers_lock:
            if self._closed:
                raise StoreError(f"the database at {self.path} is closed")
            self._active_reads += 1
        try:
            wanted = self._wanted_ms()
            if wanted != getattr(self._local, "reader_busy_ms", None):
                conn.execute(f"PRAGMA busy_timeout = {int(wanted)}")
                self._local.reader_busy_ms = wanted
            try:
                conn.execute("BEGIN")  # deferred: the snapshot starts at the first read
                yield conn
            except sqlite3.OperationalError as exc:
                cause = classify_sqlite_error(exc, self.path, "read")
                if isinstance(cause, StoreBusy):
                    raise cause from exc
                raise
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")
        finally:
            with self._readers_lock:
                self._active_reads -= 1
                self._reads_done.notify_all()

    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "reader", None)
        if conn is not None:
            return conn
        with self._readers_lock:
            if self._closed:
                raise StoreError(f"the database at {self.path} is closed")
            try:
                conn = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False, timeout=self._busy_ms / 1000
                )
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA foreign_keys = ON")  # as the writer: the same connection settings
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("PRAGMA query_only = ON")  # a read path that writes is a bug: fail it
                conn.set_trace_callback(self._trace)
            except sqlite3.Error as exc:
                raise classify_sqlite_error(exc, self.path, "open") from exc
            # Readers of threads that ended are closed here (a Connection cannot be weakly
            # referenced, so the thread is).
            alive = [(t, c) for t, c in self._readers if (th := t()) is not None and th.is_alive()]
            for t, c in self._readers:
                if (t, c) not in alive:
                    c.close()
            self._readers = [*alive, (weakref.ref(threading.current_thread()), conn)]
        self._local.reader = conn
        self._local.reader_busy_ms = None
        return conn

    def query(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        with self.reading() as conn:
            return conn.execute(sql, params).fetchall()

    def probe_write(self) -> None:
        """Take the write lock and let it go at once: StoreBusy while someone else holds it."""
        with self.transaction():
            pass

    def set_trace(self, callback: Callable[[str], None] | None) -> None:
        """Call `callback` with each SQL statement run (diagnostics; crash-safety tests)."""
        with self._lock, self._readers_lock:
            self._trace = callback
            self._conn.set_trace_callback(callback)
            for _, conn in self._readers:
                conn.set_trace_callback(callback)

    def has_table(self, name: str) -> bool:
        rows = self.query("SELECT 1 FROM sqlite_master WHERE name = ? AND type = 'table'", (name,))
        return bool(rows)

    def close(self) -> None:
        with self._readers_lock:
            self._closed = True  # no new read starts
            self._reads_done.wait_for(lambda: self._active_reads == 0, timeout=_CLOSE_WAIT_S)
            for _, conn in self._readers:
                conn.close()
            self._readers = []
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _legacy_versions(version: int) -> dict[str, int]:
    """What each part's version was in a database of the old single-list layout."""
    versions: dict[str, int] = {}
    for name, step in LEGACY_STEPS[:version]:
        versions[name] = max(versions.get(name, 0), step)
    return versions


def _record(conn: sqlite3.Connection, name: str, version: int) -> None:
    conn.execute(
        "INSERT INTO schema_parts (name, version) VALUES (?, ?)"
        " ON CONFLICT(name) DO UPDATE SET version = excluded.version",
        (name, version),
    )


@functools.lru_cache(maxsize=8)
def expected_objects(parts: tuple[SchemaPart, ...]) -> dict[tuple[str, str], str]:
    """(type, name) -> SQL of every trigger, view and index the parts' steps create, found by
    running them on an empty in-memory database (~20 ms; once per process and set of parts)."""
    scratch = sqlite3.connect(":memory:", isolation_level=None)
    try:
        scratch.execute("BEGIN")
        for part in parts:
            for step in part.steps:
                if isinstance(step, str):
                    run_script(scratch, step)
                else:
                    step(scratch)
        rows = scratch.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view', 'index')"
            " AND sql IS NOT NULL"
        ).fetchall()
        scratch.execute("ROLLBACK")
    finally:
        scratch.close()
    return {(str(r[0]), str(r[1])): str(r[2]) for r in rows}


QUICK_CHECK_ROWS = 20


def quick_check(path: Path) -> list[str]:
    """`PRAGMA quick_check` on its own read-only connection (it reads the whole file, so it runs
    in the background and never holds the app's connection); [] when the file is sound."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        rows = conn.execute(f"PRAGMA quick_check({QUICK_CHECK_ROWS})").fetchall()
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    finally:
        conn.close()
    found = [str(r[0]) for r in rows]
    return [] if found == ["ok"] else found


@dataclass(frozen=True)
class SchemaState:
    """What a read finds before opening the database (reads never create or convert it)."""

    kind: str  # "missing" | "current" | "older" | "newer"
    message: str = ""


def schema_state(path: Path, parts: Sequence[SchemaPart]) -> SchemaState:
    """Whether the database at `path` can be read as it is by the app of `parts`, found through
    a read-only connection (`mode=ro`: nothing is created, converted or journalled)."""
    if not path.is_file():
        return SchemaState("missing")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return SchemaState("current")  # unreadable: the ordinary open reports it
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version != PARTS_LAYOUT:
            if version > len(LEGACY_STEPS):
                return SchemaState("newer")
            have = _legacy_versions(version)
        else:
            have = {str(r[0]): int(r[1]) for r in conn.execute("SELECT name, version FROM schema_parts")}
    except sqlite3.Error:
        return SchemaState("current")
    finally:
        conn.close()
    behind = [p.name for p in parts if have.get(p.name, 0) < len(p.steps)]
    if any(have.get(p.name, 0) > len(p.steps) for p in parts):
        return SchemaState("newer")
    if not behind:
        return SchemaState("current")
    layout = f"schema version {version}" if version != PARTS_LAYOUT else f"older {', '.join(behind)} tables"
    return SchemaState(
        "older",
        f"the database at {path} was written by an older CashCode ({layout}) and a read does not "
        "convert it, so it was left unchanged. The CashCode that wrote it opens it as it is; this "
        "version converts it the next time it writes (start `cashcode` or run a command that saves), "
        "after which older versions refuse it",
    )
