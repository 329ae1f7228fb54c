"""The API error type: handlers (core and capabilities) raise `ApiFailure` for deliberate
errors; app/api/errors.py maps every other exception and builds the envelope."""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "invalid",
    "not_found",
    "conflict",
    "busy",
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
