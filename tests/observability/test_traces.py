"""One trace per turn, built from bus events only: timings, counts, outcomes, tokens, cost."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from app.contracts.events import ApprovalRequired
from app.observability.capability import TRACE_WRITE_WARNING
from app.observability.prices import ENV_INPUT, ENV_OUTPUT, Price, PriceTable, env_price, estimate_cost
from app.settings.config_errors import ConfigError
from tests.api.conftest import AppMaker, Recorder, add_provider, err, ok, send


async def _approve(app: Any, events: Recorder, turn_id: str, decision: str) -> None:
    await events.until(lambda: "approval_required" in events.types(turn_id))
    found = next(e for e in events.of(ApprovalRequired) if e.turn_id == turn_id)
    await ok(app, "chat.approve", {"approval_id": found.approval_id, "decision": decision})


async def _only_trace(app: Any) -> dict[str, Any]:
    traces = (await ok(app, "traces.list", {}))["traces"]
    assert len(traces) == 1
    full: dict[str, Any] = await ok(app, "traces.get", {"id": traces[0]["id"]})
    return full


async def test_a_turn_with_tools_and_an_approval_gives_one_trace_with_cost(
    make_app: AppMaker, fake_llm: Any, workspace: Path
) -> None:
    (workspace / "in.txt").write_text("data")
    app, events = await make_app(env={ENV_INPUT: "2.5", ENV_OUTPUT: "10"})
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "in.txt"}},
                {"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}},
            ],
            "usage": {"input": 1000, "output": 200},
        },
        {"tool_calls": [{"name": "no_such_tool", "arguments": {}}], "usage": {"input": 1500, "output": 100}},
        {"text": "Done.", "usage": {"input": 2000, "output": 300}},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "copy it", pid)
    await _approve(app, events, turn, "once")
    assert (await events.turn_end(turn)).type == "turn_done"

    t = await _only_trace(app)
    assert (t["chat_id"], t["turn_id"], t["provider_id"], t["model"]) == (chat["id"], turn, pid, "fake-model")
    assert t["api_mode"] == "chat_completions" and t["error_code"] is None
    assert t["status"] == "done_with_errors"  # no_such_tool failed
    assert t["model_calls"] == 3
    assert (t["input_tokens"], t["output_tokens"]) == (4500, 600)
    assert t["cost"] == pytest.approx((4500 * 2.5 + 600 * 10) / 1_000_000)
    assert t["ttft_ms"] is not None and 0 <= t["ttft_ms"] <= t["total_ms"]
    calls = [(c["name"], c["outcome"], c["approval"]) for c in t["tool_calls"]]
    assert calls == [
        ("read_file", "ok", None),
        ("write_file", "ok", "once"),
        ("no_such_tool", "error", None),
    ]
    assert all(c["duration_ms"] is not None and c["duration_ms"] >= 0 for c in t["tool_calls"])


async def test_usage_without_prices_keeps_tokens_and_leaves_cost_unknown(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "responses")
    fake_llm.script({"text": "Hi.", "usage": {"input": 10, "output": 3}})
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "hello", pid)
    await events.turn_end(turn)
    t = await _only_trace(app)
    assert (t["input_tokens"], t["output_tokens"], t["cost"]) == (10, 3, None)
    assert t["api_mode"] == "responses" and t["model_calls"] == 1


async def test_a_denied_call_and_a_failed_turn_are_traced(make_app: AppMaker, fake_llm: Any) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "o.txt", "content": "x"}}]},
        # 403: a refusal no server takes back (a 400 next to a tool-call message is sent once
        # more with "" content, decision 300).
        {"error": 403, "error_message": "forbidden"},
    )
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "write", pid)
    await _approve(app, events, turn, "deny")
    assert (await events.turn_end(turn)).type == "turn_failed"
    t = await _only_trace(app)
    assert t["status"] == "failed" and t["error_code"]
    assert t["model_calls"] == 2
    assert [(c["name"], c["outcome"], c["approval"]) for c in t["tool_calls"]] == [
        ("write_file", "denied", "deny")
    ]
    assert t["cost"] is None  # no prices configured


async def test_prices_per_provider_and_model_come_from_the_settings(
    make_app: AppMaker, fake_llm: Any
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    price = {"provider_id": pid, "model": "fake-model", "input_per_million": 1, "output_per_million": 4}
    view = await ok(app, "settings.update", {"model_prices": [price]})
    assert view["model_prices"] == [{**price, "input_per_million": 1.0, "output_per_million": 4.0}]
    fake_llm.script({"text": "Hi.", "usage": {"input": 1_000_000, "output": 500_000}})
    chat = await ok(app, "chats.create")
    await events.turn_end(await send(app, chat["id"], "hello", pid))
    assert (await _only_trace(app))["cost"] == pytest.approx(3.0)

    twice = await err(app, "settings.update", {"model_prices": [price, price]})
    assert twice["code"] == "invalid" and "one price" in twice["message"]
    negative = await err(app, "settings.update", {"model_prices": [{**price, "input_per_million": -1}]})
    assert negative["code"] == "invalid"
    assert (await ok(app, "settings.get"))["model_prices"][0]["input_per_million"] == 1.0


async def test_a_trace_write_failure_warns_once_and_the_turn_still_succeeds(
    make_app: AppMaker, fake_llm: Any, caplog: pytest.LogCaptureFixture
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    with app.ctx.db.transaction() as conn:
        conn.execute("DROP TABLE traces")
    fake_llm.script({"text": "The answer."})
    chat = await ok(app, "chats.create")
    with caplog.at_level(logging.WARNING):
        end = await events.turn_end(await send(app, chat["id"], "q", pid))
    assert end.type == "turn_done" and getattr(end, "text", "") == "The answer."
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [TRACE_WRITE_WARNING]


async def test_trace_routes_reject_unknown_ids_and_bad_ranges(make_app: AppMaker) -> None:
    app, _ = await make_app()
    assert (await err(app, "traces.get", {"id": "0" * 32}))["code"] == "not_found"
    assert (await err(app, "traces.get", {"id": "../x"}))["code"] == "not_found"
    assert (await err(app, "usage.summary", {"first_day": "2026-02-30", "last_day": "2026-03-01"}))[
        "code"
    ] == "invalid"
    assert (await err(app, "usage.summary", {"first_day": "2026-03-02", "last_day": "2026-03-01"}))[
        "code"
    ] == "invalid"
    empty = await ok(app, "usage.summary", {"first_day": "2026-01-01", "last_day": "2026-12-31"})
    assert empty["buckets"] == [] and empty["totals"]["turns"] == 0 and empty["totals"]["cost"] is None


def test_env_prices_must_come_as_a_pair_of_non_negative_decimals() -> None:
    assert env_price({}) is None
    assert env_price({ENV_INPUT: "1.25", ENV_OUTPUT: "2.50"}) == Price(
        input_per_million=__import__("decimal").Decimal("1.25"),
        output_per_million=__import__("decimal").Decimal("2.50"),
    )
    with pytest.raises(ConfigError, match=f"{ENV_OUTPUT} is not"):
        env_price({ENV_INPUT: "1"})
    with pytest.raises(ConfigError, match=f"{ENV_INPUT} is not"):
        env_price({ENV_OUTPUT: "1"})
    for bad in ("-1", "abc", "nan", "inf"):
        with pytest.raises(ConfigError, match="non-negative decimal"):
            env_price({ENV_INPUT: bad, ENV_OUTPUT: "1"})


def test_cost_is_unknown_without_usage_or_price() -> None:
    price = PriceTable(None).lookup("p", "m")
    assert price is None
    assert estimate_cost(None, 10, 10) is None
    assert (
        estimate_cost(Price(__import__("decimal").Decimal(1), __import__("decimal").Decimal(1)), None, 3)
        is None
    )


async def test_usage_summary_buckets_totals_and_top_turns_over_seeded_traces(make_app: AppMaker) -> None:
    from datetime import UTC, datetime

    from app.testing.trace_seed import seed_traces

    app, _ = await make_app()
    seed_traces(app.ctx.db, 90, days=30, chat_ids=["c1"], today=datetime(2026, 3, 31, tzinfo=UTC))
    data = await ok(app, "usage.summary", {"first_day": "2026-03-22", "last_day": "2026-03-31"})
    rows = app.ctx.db.query(
        "SELECT COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(cost), SUM(cost IS NULL) FROM traces"
        " WHERE started_at >= '2026-03-22' AND started_at < '2026-04-01'"
    )[0]
    totals = data["totals"]
    assert totals["turns"] == rows[0] == 30  # 3 turns a day, one per model
    assert (totals["input_tokens"], totals["output_tokens"]) == (rows[1], rows[2])
    assert totals["cost"] == pytest.approx(rows[3]) and totals["unknown_cost_turns"] == rows[4] == 10
    assert {b["day"] for b in data["buckets"]} == {f"2026-03-{d}" for d in range(22, 32)}
    assert len(data["buckets"]) == 30
    slow = [t["total_ms"] for t in data["slowest"]]
    assert slow == sorted(slow, reverse=True) and len(slow) == 10
    top = app.ctx.db.query(
        "SELECT MAX(total_ms) FROM traces WHERE started_at >= '2026-03-22' AND started_at < '2026-04-01'"
    )[0][0]
    assert slow[0] == top
    costly = [t["cost"] for t in data["most_expensive"]]
    assert costly == sorted(costly, reverse=True) and None not in costly
