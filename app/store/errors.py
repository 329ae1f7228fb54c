"""Typed store errors, so callers map them to API error codes without string matching."""

from __future__ import annotations

from app.contracts.errors import DATABASE_BUSY_MESSAGE, DatabaseBusy


class StoreError(Exception):
    """The database cannot be used (corrupt, unreadable, wrong schema)."""


class StoreBusy(StoreError, DatabaseBusy):
    """Another connection holds the lock we need, past the wait we allow (a busy timeout)."""


class SchemaTooNew(StoreError):
    """The database was written by a newer CashCode; it is left untouched."""


class InvalidId(ValueError):
    """An id failed validation at a boundary."""


class NotFound(LookupError):
    """The addressed record does not exist."""


class Conflict(Exception):
    """The write clashes with existing data (e.g. a turn id written twice)."""


class StorageFull(StoreError):
    """The disk (or the data folder's quota) is full; the database itself is fine."""


class StorageUnwritable(StoreError):
    """The data folder or database file cannot be opened or written (permissions, read-only)."""


# SQLite primary result codes (https://sqlite.org/rescode.html is the reference; numbers only).
_FULL = 13
_READONLY, _PERM, _CANTOPEN, _IOERR, _AUTH = 8, 3, 14, 10, 23
_CORRUPT, _NOTADB = 11, 26
_BUSY, _LOCKED = 5, 6


def classify_sqlite_error(exc: BaseException, path: object, doing: str) -> StoreError:
    """Name the real cause: only CORRUPT/NOTADB mean a damaged file; a full disk or a read-only
    folder must never be reported as damage (the user would move a healthy database aside)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    errno_ = getattr(exc, "errno", None)
    if primary in (_BUSY, _LOCKED):
        return StoreBusy(DATABASE_BUSY_MESSAGE)
    if primary == _FULL or errno_ == 28 or "disk is full" in str(exc).lower():
        return StorageFull(f"the disk holding {path} is full ({exc}); free some space and try again")
    if primary in (_READONLY, _PERM, _CANTOPEN, _AUTH) or errno_ in (1, 13, 30):
        return StorageUnwritable(
            f"cannot {doing} the database at {path} ({exc}): check that the data folder exists and "
            "is writable"
        )
    if primary == _IOERR:
        return StoreError(f"a disk error occurred while trying to {doing} the database at {path} ({exc})")
    if primary in (_CORRUPT, _NOTADB):
        return StoreError(
            f"the database file {path} is damaged or not a CashCode database ({exc}); "
            "it was left unchanged — move it aside to start fresh"
        )
    return StoreError(f"cannot {doing} the database at {path}: {exc}")
