"""Timestamps as ISO-8601 UTC strings with a fixed width, so text order equals time order."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
