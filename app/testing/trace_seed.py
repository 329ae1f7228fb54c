"""Seeds the traces table with synthetic turns (the Usage view's e2e test and the benchmark).

Deterministic for a given `count` and `today`: turns are spread over `days` days ending
`today`, over a few models, with tools, costs and a few unknown costs."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from app.store.db import Database

MODELS = (("openai", "gpt-5.6-luna"), ("openai", "gpt-5.6-mini"), ("local", "qwen3:8b"))


def seed_traces(
    db: Database,
    count: int,
    *,
    days: int = 30,
    chat_ids: Sequence[str] = ("c_seed",),
    today: datetime | None = None,
) -> None:
    end = (today or datetime.now(UTC)).replace(hour=12, minute=0, second=0, microsecond=0)
    tools = json.dumps([{"name": "read_file", "duration_ms": 3.5, "outcome": "ok", "approval": None}])
    rows = []
    for i in range(count):
        provider, model = MODELS[i % len(MODELS)]
        started = end - timedelta(days=(i // len(MODELS)) % days, seconds=i % 3600)
        input_tokens, output_tokens = 500 + (i * 37) % 4000, 50 + (i * 13) % 900
        cost = None if provider == "local" else (input_tokens * 1.25 + output_tokens * 10) / 1_000_000
        rows.append(
            (
                uuid.UUID(int=i + 1).hex, chat_ids[i % len(chat_ids)], f"t_{i:08d}", provider,
                "chat_completions", model, "done" if i % 17 else "failed", None if i % 17 else "server_error",
                started.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), started.strftime("%Y-%m-%d"),
                300.0 + (i * 7) % 900, 800.0 + (i * 31) % 20_000,
                1 + i % 3, input_tokens, output_tokens, cost, tools if i % 2 else "[]",
            )
        )  # fmt: skip
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO traces (id, chat_id, turn_id, provider_id, api_mode, model, status, error_code,"
            " started_at, day, ttft_ms, total_ms, model_calls, input_tokens, output_tokens, cost, tool_calls)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
