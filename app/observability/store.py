"""The traces table: write one row per turn, list/get, and the Usage view's aggregates."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import asdict, dataclass

from app.observability.trace_model import ToolCallTrace, TraceRecord
from app.store.db import Database

_TRACE_ID = re.compile(r"^[0-9a-f]{32}$")
_COLUMNS = (
    "id, chat_id, turn_id, provider_id, api_mode, model, status, error_code, started_at, ttft_ms,"
    " total_ms, model_calls, input_tokens, output_tokens, cost, tool_calls"
)


def valid_trace_id(value: str) -> bool:
    return bool(_TRACE_ID.fullmatch(value))


@dataclass(frozen=True)
class DayModelBucket:
    day: str  # YYYY-MM-DD (UTC)
    provider_id: str
    model: str
    turns: int
    input_tokens: int
    output_tokens: int
    cost: float | None  # None: no turn of the bucket had a known cost
    unknown_cost_turns: int = 0


@dataclass(frozen=True)
class UsageTotals:
    turns: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    unknown_cost_turns: int  # turns whose cost is unknown (no usage or no price)


class TraceRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, rec: TraceRecord) -> None:
        tools = json.dumps([asdict(t) for t in rec.tool_calls], separators=(",", ":"))
        with self._db.transaction() as conn:
            conn.execute(
                f"INSERT INTO traces ({_COLUMNS}, day) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rec.id, rec.chat_id, rec.turn_id, rec.provider_id, rec.api_mode, rec.model,
                    rec.status, rec.error_code, rec.started_at, rec.ttft_ms, rec.total_ms,
                    rec.model_calls, rec.input_tokens, rec.output_tokens, rec.cost, tools,
                    rec.started_at[:10],
                ),
            )  # fmt: skip

    def recent(self, limit: int = 20, *, since: str = "", until: str = "\uffff") -> list[TraceRecord]:
        rows = self._db.query(
            f"SELECT {_COLUMNS} FROM traces WHERE started_at >= ? AND started_at < ?"
            " ORDER BY started_at DESC, id LIMIT ?",
            (since, until, limit),
        )
        return [_record(r) for r in rows]

    def get(self, trace_id: str) -> TraceRecord | None:
        rows = self._db.query(f"SELECT {_COLUMNS} FROM traces WHERE id = ?", (trace_id,))
        return _record(rows[0]) if rows else None

    def top(self, order: str, limit: int, since: str, until: str) -> list[TraceRecord]:
        """The slowest (`total_ms`) or most expensive (`cost`) turns in the range."""
        column = {"total_ms": "total_ms", "cost": "cost"}[order]
        # Walk the column's index from the top and stop after `limit` rows in the range: far
        # cheaper than sorting every turn of the range.
        rows = self._db.query(
            f"SELECT {_COLUMNS} FROM traces INDEXED BY traces_{column}"
            f" WHERE started_at >= ? AND started_at < ? AND {column} IS NOT NULL"
            f" ORDER BY {column} DESC LIMIT ?",
            (since, until, limit),
        )
        return [_record(r) for r in rows]

    def by_day_and_model(self, since: str, until: str) -> list[DayModelBucket]:
        rows = self._db.query(
            "SELECT day, provider_id, model, COUNT(*),"
            " COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), SUM(cost), SUM(cost IS NULL)"
            " FROM traces INDEXED BY traces_usage WHERE day >= ? AND day < ?"
            " GROUP BY day, provider_id, model ORDER BY day, provider_id, model",
            (since[:10], until[:10]),
        )
        return [DayModelBucket(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in rows]


def totals_of(buckets: list[DayModelBucket]) -> UsageTotals:
    """Totals summed from the buckets (one index walk serves the chart and the totals)."""
    costs = [b.cost for b in buckets if b.cost is not None]
    return UsageTotals(
        turns=sum(b.turns for b in buckets),
        input_tokens=sum(b.input_tokens for b in buckets),
        output_tokens=sum(b.output_tokens for b in buckets),
        cost=sum(costs) if costs else None,
        unknown_cost_turns=sum(b.unknown_cost_turns for b in buckets),
    )


def _record(row: sqlite3.Row) -> TraceRecord:
    tools = tuple(
        ToolCallTrace(t["name"], t.get("duration_ms"), t["outcome"], t.get("approval"))
        for t in json.loads(row["tool_calls"])
    )
    return TraceRecord(
        id=row["id"],
        chat_id=row["chat_id"],
        turn_id=row["turn_id"],
        provider_id=row["provider_id"],
        api_mode=row["api_mode"],
        model=row["model"],
        status=row["status"],
        error_code=row["error_code"],
        started_at=row["started_at"],
        ttft_ms=row["ttft_ms"],
        total_ms=row["total_ms"],
        model_calls=row["model_calls"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        cost=row["cost"],
        tool_calls=tools,
    )
