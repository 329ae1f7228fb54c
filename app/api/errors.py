"""Mapping failures to the API error envelope (codes from docs/architecture.md).

Handlers raise `ApiFailure` for deliberate errors; known domain exceptions are mapped here, so
routes stay free of try/except. Messages never carry tracebacks or secrets.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from typing import Any

from pydantic import ValidationError

from app.contracts.errors import DATABASE_BUSY_MESSAGE, ApiFailure, DatabaseBusy
from app.contracts.provider import ProviderError
from app.core.turns import ChatBusy, NothingToRetry
from app.settings.secrets import KeyringUnavailable, SecretStoreError, redact
from app.settings.user_settings import SettingsError
from app.store.errors import Conflict, InvalidId, NotFound, StoreError, classify_sqlite_error

_log = logging.getLogger(__name__)


def to_failure(exc: BaseException, route: str) -> ApiFailure:
    """Translate any exception raised by a handler into an ApiFailure."""
    if isinstance(exc, ApiFailure):
        return exc
    if isinstance(exc, ValidationError):
        return ApiFailure("invalid", "invalid request", _validation_details(exc))
    if isinstance(exc, ChatBusy):
        return ApiFailure("busy", "This chat is still running a turn; stop it or wait for it to finish.")
    if isinstance(exc, NothingToRetry | NotFound):
        return ApiFailure("not_found", str(exc))
    if isinstance(exc, Conflict):
        return ApiFailure("conflict", str(exc))
    if isinstance(exc, InvalidId | ValueError):
        return ApiFailure("invalid", str(exc))
    if isinstance(exc, ProviderError):
        return ApiFailure("provider_error", exc.message, {**exc.details, "provider_code": exc.code})
    if isinstance(exc, KeyringUnavailable | SecretStoreError):
        return ApiFailure("keyring_unavailable", str(exc))
    if isinstance(exc, SettingsError):
        return ApiFailure("invalid", str(exc))
    if isinstance(exc, DatabaseBusy):
        return ApiFailure("database_busy", DATABASE_BUSY_MESSAGE)
    if isinstance(exc, StoreError):
        return ApiFailure("internal", f"Storage problem: {exc}")
    if isinstance(exc, sqlite3.Error) or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
        # Raised mid-operation (a write on a full disk): name the cause, never "damaged".
        cause = classify_sqlite_error(exc, "the data folder", "write")
        if isinstance(cause, DatabaseBusy):
            return ApiFailure("database_busy", DATABASE_BUSY_MESSAGE)
        return ApiFailure("internal", f"Storage problem: {cause}")
    _log.error("route %s failed", route, exc_info=exc)
    return ApiFailure(
        "internal", f"Internal error in {route} ({type(exc).__name__}); see the log for details."
    )


def error_envelope(failure: ApiFailure) -> dict[str, Any]:
    details = {k: redact(v) for k, v in failure.details.items()}
    return {
        "ok": False,
        "error": {"code": failure.code, "message": redact(failure.message), "details": details},
    }


def _validation_details(exc: ValidationError) -> dict[str, str]:
    return {".".join(str(p) for p in e["loc"]) or "(root)": e["msg"] for e in exc.errors()}
