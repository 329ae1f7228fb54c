"""Typed store errors, so callers map them to API error codes without string matching."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used (corrupt, unreadable, wrong schema)."""


class SchemaTooNew(StoreError):
    """The database was written by a newer CashCode; it is left untouched."""


class InvalidId(ValueError):
    """An id failed validation at a boundary."""


class NotFound(LookupError):
    """The addressed record does not exist."""


class Conflict(Exception):
    """The write clashes with existing data (e.g. a turn id written twice)."""
