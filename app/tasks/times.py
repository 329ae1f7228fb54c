"""Times as the tasks tables store them: UTC, fixed width, so text order is time order."""

from __future__ import annotations

from datetime import UTC, datetime

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def to_db(value: datetime) -> str:
    return value.astimezone(UTC).strftime(_FORMAT)


def from_db(value: str) -> datetime:
    return datetime.strptime(value, _FORMAT).replace(tzinfo=UTC)


def maybe(value: str | None) -> datetime | None:
    return from_db(value) if value is not None else None
