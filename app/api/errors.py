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

from app.contracts.errors import DATABASE_BUSY_MESSAGE, ApiFailure, DatabaseBusy, said, say
from app.contracts.provider import ProviderError
from app.core.turns import ChatBusy, NothingToRetry, NotSteerable
from app.settings.secrets import KeyringUnavailable, SecretStoreError, redact
from app.settings.user_settings import SettingsError
from app.store.errors import Conflict, InvalidId, NotFound, StoreError, classify_sqlite_error

_log = logging.getLogger(__name__)


def to_failure(exc: BaseException, route: str) -> ApiFailure:
    """Translate any exception raised by a handler into an ApiFailure."""
    if isinstance(exc, ApiFailure):
        return exc
    if isinstance(exc, ValidationError):
        return ApiFailure("invalid", _validation_message(exc), _validation_details(exc))
    if isinstance(exc, ChatBusy):
        return ApiFailure("busy", say("chat.busy"))
    if isinstance(exc, NothingToRetry | NotSteerable | NotFound):
        return ApiFailure("not_found", said(exc))
    if isinstance(exc, Conflict):
        return ApiFailure("conflict", said(exc))
    if isinstance(exc, InvalidId | ValueError):
        return ApiFailure("invalid", said(exc))
    if isinstance(exc, ProviderError):
        return ApiFailure("provider_error", exc.message, {**exc.details, "provider_code": exc.code})
    if isinstance(exc, KeyringUnavailable | SecretStoreError):
        return ApiFailure("keyring_unavailable", said(exc))
    if isinstance(exc, SettingsError):
        return ApiFailure("invalid", said(exc))
    if isinstance(exc, DatabaseBusy):
        return ApiFailure("database_busy", DATABASE_BUSY_MESSAGE, key="database_busy")
    if isinstance(exc, StoreError):
        return ApiFailure("internal", say("storage_problem", reason=exc))
    if isinstance(exc, sqlite3.Error) or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
        # Raised mid-operation (a write on a full disk): name the cause, never "damaged".
        cause = classify_sqlite_error(exc, "the data folder", "write")
        if isinstance(cause, DatabaseBusy):
            return ApiFailure("database_busy", DATABASE_BUSY_MESSAGE, key="database_busy")
        return ApiFailure("internal", say("storage_problem", reason=cause))
    _log.error("route %s failed", route, exc_info=exc)
    return ApiFailure("internal", say("internal", route=route, kind=type(exc).__name__))


def error_envelope(failure: ApiFailure) -> dict[str, Any]:
    details = {k: redact(v) for k, v in failure.details.items()}
    error: dict[str, Any] = {"code": failure.code, "message": redact(failure.message), "details": details}
    if failure.key:  # the catalog entry and what it names, for the UI's own wording
        error["key"] = failure.key
        error["params"] = {k: redact(v) for k, v in failure.params.items()}
    return {"ok": False, "error": error}


# pydantic's error type → the catalog entry saying it, and the context value it names.
_VALIDATION_KEYS: dict[str, tuple[str, str]] = {
    "missing": ("request.field_missing", ""),
    "extra_forbidden": ("request.field_unknown", ""),
    "string_too_long": ("request.field_too_long", "max_length"),
    "string_too_short": ("request.field_too_short", "min_length"),
    "too_long": ("request.field_too_many", "max_length"),
    "too_short": ("request.field_too_few", "min_length"),
    "literal_error": ("request.field_choice", "expected"),
    "enum": ("request.field_choice", "expected"),
    "greater_than_equal": ("request.field_min", "ge"),
    "greater_than": ("request.field_above", "gt"),
    "less_than_equal": ("request.field_max", "le"),
    "less_than": ("request.field_below", "lt"),
    "string_pattern_mismatch": ("request.field_pattern", ""),
}


def _validation_message(exc: ValidationError) -> str:
    """The first problem, worded: which field, and why (the rest are in the details)."""
    errors = exc.errors()
    if not errors:
        return say("request.invalid")
    first = errors[0]
    field = ".".join(str(p) for p in first["loc"]) or "(root)"
    key, limit = _VALIDATION_KEYS.get(first["type"], ("request.field_invalid", ""))
    if key == "request.field_invalid":
        return say(key, field=field, reason=first["msg"])
    if limit:
        return say(key, field=field, limit=(first.get("ctx") or {}).get(limit, "?"))
    return say(key, field=field)


def _validation_details(exc: ValidationError) -> dict[str, str]:
    return {".".join(str(p) for p in e["loc"]) or "(root)": e["msg"] for e in exc.errors()}
