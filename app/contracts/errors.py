"""The API error type: handlers (core and capabilities) raise `ApiFailure` for deliberate
errors; app/api/errors.py maps every other exception and builds the envelope.

A message meant for people is made with `say(key, **params)`: the English text from the
catalog (app/contracts/error_texts.py) as a `str` that also carries its key and parameters, so
the UI can word it in its own language while the CLI and logs keep the English."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from app.contracts.error_texts import ERROR_TEXTS

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


class Said(str):
    """English text from the catalog that remembers which entry and parameters made it."""

    key: str
    params: dict[str, str]

    def __new__(cls, key: str, params: Mapping[str, object]) -> Said:
        shown = {name: str(value) for name, value in params.items()}
        text = super().__new__(cls, ERROR_TEXTS[key].format(**shown))
        text.key = key
        text.params = shown
        return text

    def __reduce__(self) -> tuple[type[Said], tuple[str, dict[str, str]]]:
        return (Said, (self.key, self.params))  # copy and pickle rebuild it from its entry


def say(key: str, **params: object) -> Said:
    """The catalog's English for `key`, filled in; raises KeyError for a key not in the catalog
    (tests/contracts/test_error_texts.py checks every key used in app/ is there)."""
    return Said(key, params)


def nest(outer: Said, name: str, inner: str) -> Said:
    """`outer` whose parameter `name` holds the text `inner`; when `inner` was said with a key
    too, its key and parameters ride along as `<name>_key` and `<name>_<param>`, so the UI can
    word the inner reason in its own language (the English text is unchanged)."""
    if not isinstance(inner, Said):
        return outer
    extra = {f"{name}_{param}": value for param, value in inner.params.items()}
    return Said(outer.key, {**outer.params, **extra, f"{name}_key": inner.key})


def said(exc: BaseException) -> str:
    """The exception's message, keeping its key when it was raised with `say(...)`."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Said) else str(exc)


class ApiFailure(Exception):
    def __init__(
        self,
        code: ErrorCode,
        message: str,
        details: dict[str, str] | None = None,
        *,
        key: str = "",
        params: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = str(message)
        self.details = details or {}
        # The catalog entry the UI words the message from (empty: show `message` as it is). A
        # `say(...)` message brings its own; `key`/`params` pass on one from another envelope.
        self.key = message.key if isinstance(message, Said) else key
        self.params = dict(message.params) if isinstance(message, Said) else dict(params or {})


DATABASE_BUSY_MESSAGE = (
    "The database is busy: another program is using CashCode's data right now. "
    "Try again in a moment; close the other program if this persists."
)


class DatabaseBusy(Exception):
    """The database stayed locked by someone else past the short wait the app allows."""
