"""Timestamps as ISO-8601 UTC strings with a fixed width, so text order equals time order."""

from __future__ import annotations

from datetime import UTC, datetime

FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# What FORMAT writes, as an SQLite GLOB (finds rows written in another form).
FIXED_GLOB = (
    "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]"
    ".[0-9][0-9][0-9][0-9][0-9][0-9]Z"
)


def utc_now_iso() -> str:
    return datetime.now(UTC).strftime(FORMAT)


def normalize_iso(text: str) -> str:
    """Any ISO 8601 date-time (`Z`, an offset, or none = UTC; any fraction) in the fixed-width
    UTC form: `…00Z` of another writer would sort above the newer `…00.900000Z` as text.
    Raises ValueError for text that is not a date-time."""
    value = datetime.fromisoformat(text.strip())
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime(FORMAT)
