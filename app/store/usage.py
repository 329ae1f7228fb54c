"""Token usage per model call or turn (SPEC S2.4, S9). Kept after a chat is deleted."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from app.store.db import Database
from app.store.ids import validate_chat_id, validate_turn_id
from app.store.timeutil import utc_now_iso


@dataclass(frozen=True)
class UsageRecord:
    chat_id: str
    turn_id: str
    provider_id: str
    model: str
    input_tokens: int | None  # None: the provider did not report it
    output_tokens: int | None
    created_at: str


@dataclass(frozen=True)
class UsageTotals:
    input_tokens: int
    output_tokens: int
    records: int


@dataclass(frozen=True)
class UsageBucket:
    """Totals for one UTC day and one provider/model (for the Usage charts)."""

    day: str  # YYYY-MM-DD
    provider_id: str
    model: str
    input_tokens: int
    output_tokens: int
    records: int


def _count(value: int | None, what: str) -> int | None:
    if value is not None and (not isinstance(value, int) or value < 0):
        raise ValueError(f"{what} must be a non-negative integer or None, got {value!r}")
    return value


class UsageRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def record(
        self,
        chat_id: str,
        turn_id: str,
        provider_id: str,
        model: str,
        input_tokens: int | None,
        output_tokens: int | None,
    ) -> UsageRecord:
        rec = UsageRecord(
            chat_id=validate_chat_id(chat_id),
            turn_id=validate_turn_id(turn_id),
            provider_id=provider_id,
            model=model,
            input_tokens=_count(input_tokens, "input_tokens"),
            output_tokens=_count(output_tokens, "output_tokens"),
            created_at=utc_now_iso(),
        )
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO usage (chat_id, turn_id, provider_id, model, input_tokens, output_tokens,"
                " created_at) VALUES (?,?,?,?,?,?,?)",
                (
                    rec.chat_id,
                    rec.turn_id,
                    rec.provider_id,
                    rec.model,
                    rec.input_tokens,
                    rec.output_tokens,
                    rec.created_at,
                ),
            )
        return rec

    def for_chat(self, chat_id: str) -> list[UsageRecord]:
        rows = self._db.query(
            "SELECT * FROM usage WHERE chat_id = ? ORDER BY id", (validate_chat_id(chat_id),)
        )
        return [_record(r) for r in rows]

    def totals(self, *, since: str | None = None) -> UsageTotals:
        """Sums over all records (from the ISO timestamp `since` on, when given)."""
        row = self._db.query(
            "SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), COUNT(*)"
            " FROM usage WHERE created_at >= ?",
            (since or "",),
        )[0]
        return UsageTotals(input_tokens=row[0], output_tokens=row[1], records=row[2])

    def by_day_and_model(self, *, since: str | None = None) -> list[UsageBucket]:
        rows = self._db.query(
            "SELECT substr(created_at, 1, 10) AS day, provider_id, model,"
            " COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), COUNT(*)"
            " FROM usage WHERE created_at >= ? GROUP BY day, provider_id, model"
            " ORDER BY day, provider_id, model",
            (since or "",),
        )
        return [UsageBucket(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]


def _record(row: sqlite3.Row) -> UsageRecord:
    return UsageRecord(
        chat_id=row["chat_id"],
        turn_id=row["turn_id"],
        provider_id=row["provider_id"],
        model=row["model"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        created_at=row["created_at"],
    )
