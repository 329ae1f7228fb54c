"""Observability budgets (issue 13): trace overhead per turn ≤ 1 ms; Usage view data over
100,000 turns ≤ 300 ms.

Method
- Trace overhead: the events of a realistic turn (start, 40 text deltas, two tool calls with
  results, one approval, two usage reports, done) are published on a real EventBus, once with
  the observability capability subscribed (real SQLite file, WAL, one INSERT per turn) and once
  without; the difference of the medians over `--turns` turns is the per-turn overhead. The
  turn's own work is not included, only what tracing adds.
- Usage data: 100,000 traces seeded over 90 days (app/testing/trace_seed.py) in a real SQLite
  file; `usage.summary` is invoked through the route handler for a 30-day and a 90-day range
  (aggregation by day and model, totals, the 10 slowest and 10 most expensive turns) and
  serialised to JSON as the server would. Median of `--runs`.
- Optional `--browser`: the built UI in Debian's Chromium through `cashcode serve` on the same
  seeded database; time from navigation to the Usage view until both charts have drawn
  (median of `--runs` reloads). Needs app/web built and /usr/bin/chromium.

Run from the repo root: .venv/bin/python bench/bench_observability.py [--turns 2000] [--runs 15] [--browser]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.api.plugins import open_database  # noqa: E402
from app.contracts.events import (  # noqa: E402
    AppEvent,
    ApprovalRequired,
    ApprovalResolved,
    Delta,
    ToolCallEvent,
    ToolResultEvent,
    TurnDone,
    TurnStarted,
    UsageEvent,
)
from app.core.bus import EventBus  # noqa: E402
from app.observability.capability import TraceCapability  # noqa: E402
from app.observability.prices import Price, PriceTable  # noqa: E402
from app.observability.store import TraceRepository  # noqa: E402


def turn_events(n: int) -> list[AppEvent]:
    c, t = "c_bench", f"t_{n:08d}"
    events: list[AppEvent] = [TurnStarted(chat_id=c, turn_id=t, provider_id="p", model="m", user_text="hi")]
    events += [
        ToolCallEvent(chat_id=c, turn_id=t, call_id=f"k{i}", name="read_file", arguments="{}") for i in (1, 2)
    ]
    events.append(
        ApprovalRequired(
            chat_id=c, turn_id=t, approval_id="a1", call_id="k2", tool="read_file", title="x", detail="x"
        )
    )
    events.append(ApprovalResolved(chat_id=c, turn_id=t, approval_id="a1", decision="once"))
    events += [
        ToolResultEvent(
            chat_id=c, turn_id=t, call_id=f"k{i}", name="read_file", ok=True, output="x", duration_ms=2.0
        )
        for i in (1, 2)
    ]
    events.append(UsageEvent(chat_id=c, turn_id=t, model="m", input_tokens=100, output_tokens=20))
    events += [Delta(chat_id=c, turn_id=t, text="word ") for _ in range(40)]
    events.append(UsageEvent(chat_id=c, turn_id=t, model="m", input_tokens=150, output_tokens=40))
    events.append(TurnDone(chat_id=c, turn_id=t, duration_ms=1.0, text="done"))
    return events


def publish_all(bus: EventBus, turns: list[list[AppEvent]]) -> list[float]:
    times = []
    for events in turns:
        started = time.perf_counter()
        for event in events:
            bus.publish(event)
        times.append((time.perf_counter() - started) * 1000)
    return times


def trace_overhead(turns: int, tmp: Path) -> tuple[float, float]:
    prepared = [turn_events(i) for i in range(turns)]
    bare = publish_all(EventBus(), prepared)
    with open_database(tmp / "trace.sqlite3") as db:
        bus = EventBus()
        table = PriceTable(Price(__import__("decimal").Decimal("1.25"), __import__("decimal").Decimal("10")))
        TraceCapability(bus, TraceRepository(db), lambda: table, lambda _pid: "chat_completions")
        traced = publish_all(bus, prepared)
        assert db.query("SELECT COUNT(*) FROM traces")[0][0] == turns
    return statistics.median(traced) - statistics.median(bare), statistics.quantiles(traced, n=20)[18]


def usage_route(runs: int, db_path: Path) -> dict[str, float]:
    from datetime import UTC, datetime, timedelta

    from app.observability import api_models as am

    out: dict[str, float] = {}
    with open_database(db_path) as db:
        cap = TraceCapability(EventBus(), TraceRepository(db), lambda: PriceTable(None), lambda _pid: None)
        today = datetime.now(UTC).date()
        for days in (30, 90):
            req = am.UsageRange(
                first_day=(today - timedelta(days=days - 1)).isoformat(), last_day=today.isoformat()
            )
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                result = asyncio.run(cap.usage_summary(req))
                json.dumps(result.model_dump(mode="json"))
                times.append((time.perf_counter() - started) * 1000)
            out[f"{days}d"] = statistics.median(times)
    return out


def seed(db_path: Path, count: int) -> None:
    from app.testing.trace_seed import seed_traces

    with open_database(db_path) as db:
        seed_traces(db, count, days=90, chat_ids=[f"c_{i}" for i in range(50)])


def browser_render(db_path: Path, runs: int, tmp: Path) -> tuple[float, float]:
    import os
    import shutil

    from playwright.sync_api import sync_playwright

    from tests.server.process import free_port, serve_process

    data = tmp / "home" / "data"
    data.mkdir(parents=True)
    shutil.copy(db_path, data / "cashcode.sqlite3")
    env = {
        **os.environ,
        "CASHCODE_DATA_DIR": str(data),
        "CASHCODE_CONFIG_DIR": str(tmp / "home" / "config"),
        "CASHCODE_LOG_DIR": str(tmp / "home" / "log"),
        "CASHCODE_CACHE_DIR": str(tmp / "home" / "cache"),
        "PYTHON_KEYRING_BACKEND": "app.testing.fake_keyring.FileKeyring",
        "CASHCODE_TEST_KEYRING_FILE": str(tmp / "home" / "keyring.json"),
    }
    times = []
    with (
        serve_process(["--no-open", "--port", str(free_port())], env, cwd=ROOT) as served,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(served.start_url)
        page.get_by_test_id("app-root").wait_for()
        for _ in range(runs):
            page.goto(served.base_url + "/#/")
            page.get_by_test_id("app-root").wait_for()
            started = time.perf_counter()
            page.goto(served.base_url + "/#/usage")
            page.wait_for_function(
                "() => { const cs = document.querySelectorAll('.usage-chart canvas');"
                " const t = document.querySelector('[data-testid=usage-totals]');"
                " return cs.length === 2 && t && t.querySelector('dd').textContent.trim() !== '0'"
                " && [...cs].every(c => c.width > 0); }",
                polling="raf",
            )
            times.append((time.perf_counter() - started) * 1000)
        # Reference: the same navigation to the Evals view (one route call, a table, no chart).
        floor = []
        for _ in range(runs):
            page.goto(served.base_url + "/#/")
            page.get_by_test_id("app-root").wait_for()
            started = time.perf_counter()
            page.goto(served.base_url + "/#/evals")
            page.get_by_test_id("evals-no-runs").wait_for()
            floor.append((time.perf_counter() - started) * 1000)
        browser.close()
    return statistics.median(times), statistics.median(floor)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        overhead, p95 = trace_overhead(args.turns, tmp)
        print(
            f"| trace overhead per turn (median, {args.turns} turns) | {overhead:.3f} ms"
            f" (p95 turn {p95:.3f} ms) | ≤ 1 ms |"
        )
        db_path = tmp / "usage.sqlite3"
        seed(db_path, args.rows)
        for rng, ms in usage_route(args.runs, db_path).items():
            print(
                f"| usage.summary over {args.rows:,} turns, {rng} range (route + JSON)"
                f" | {ms:.1f} ms | ≤ 300 ms |"
            )
        if args.browser:
            ms, floor = browser_render(db_path, max(3, args.runs // 3), tmp)
            print(
                f"| Usage view navigation → both charts drawn, {args.rows:,} turns, 30d"
                f" | {ms:.0f} ms | ≤ 300 ms |"
            )
            label = "reference: navigation to the Evals view (one route call, no chart)"
            print(f"| {label} | {floor:.0f} ms | — |")


if __name__ == "__main__":
    main()
