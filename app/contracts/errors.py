"""The API error type: handlers (core and capabilities) raise `ApiFailure` for deliberate
errors; app/api/errors.py maps every other exception and builds the envelope."""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "invalid",
    "not_found",
    "conflict",
    "busy",
    "database_busy",  # another program holds the database; try again in a moment
    "provider_error",
    "keyring_unavailable",
    "unsupported",
    "internal",
]


class ApiFailure(Exception):
    def __init__(self, code: ErrorCode, message: str, details: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.details = details or {}


DATABASE_BUSY_MESSAGE = (
    "The database is busy: another program is using CashCode's data right now. "
    "Try again in a moment; close the other program if this persists."
)


class DatabaseBusy(Exception):
    """The database stayed locked by someone else past the short wait the app allows."""
