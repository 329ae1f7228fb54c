"""Scheduled tasks budget (issue 29): with 1,000 enabled tasks, the scheduler's wake-ups cost
≤ 2% CPU per minute and add ≤ 2% to the idle app's PSS.

Method
- The real app (`build_app`, temp data dirs, an in-memory test keyring) with its background
  work started (`start_background`, as `serve` and the desktop do). PSS of this process
  (/proc/self/smaps_rollup) after a settled idle: the floor.
- 1,000 enabled tasks added through `tasks.add` (cron and one-off schedules whose next run is
  weeks away, so none fires during the measurement; the scheduler is woken after each add).
  PSS again after a settled idle: added memory = difference, compared with the floor.
- Wake-up CPU: the scheduler wakes at most every 30 s when nothing is due (2 wakes a minute);
  one wake = `tick()` (the due-range read) + the next-delay read. CPU time (process time) of
  `--wakes` wakes, median per wake × 2 = CPU seconds per minute, as a share of one core-minute.

Run from the repo root: .venv/bin/python bench/bench_tasks.py [--tasks 1000] [--wakes 600]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.api.bootstrap import build_app  # noqa: E402
from app.settings.paths import AppPaths  # noqa: E402
from app.settings.secrets import SecretStore  # noqa: E402
from app.tasks.hooks import TasksHooks  # noqa: E402
from app.testing.fake_keyring import MemoryKeyring  # noqa: E402


def pss_kb() -> int:
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    raise SystemExit("no Pss line in /proc/self/smaps_rollup (Linux only)")


async def settled_pss() -> int:
    gc.collect()
    await asyncio.sleep(1.0)
    return pss_kb()


async def main(count: int, wakes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "ws").mkdir()
        paths = AppPaths(base / "data", base / "config", base / "logs", base / "cache")
        env = {"CASHCODE_DREAM": "off"}
        app = build_app(paths, env, workspace=base / "ws", secrets=SecretStore(backend=MemoryKeyring()))
        await app.start_background()
        await app.invoke("tasks.list", {})  # routes bound, as after the UI's first page
        floor = await settled_pss()
        far = datetime.now(UTC) + timedelta(days=40)
        for i in range(count):
            schedule = (
                {"kind": "cron", "expr": f"{i % 60} {i % 24} 1 1 *"}
                if i % 2
                else {"kind": "once", "at": (far + timedelta(minutes=i)).isoformat()}
            )
            draft = {"name": f"task {i}", "prompt": f"prompt {i}", "schedule": schedule}
            reply = await app.invoke("tasks.add", {"draft": draft})
            assert reply["ok"], reply
        with_tasks = await settled_pss()
        cap = next(c for c in app.capabilities if isinstance(c, TasksHooks)).full()
        per_wake: list[float] = []
        for _ in range(wakes):
            started = time.process_time()
            cap.scheduler.tick()
            cap.scheduler._delay()  # the other half of a wake
            per_wake.append(time.process_time() - started)
        await app.aclose()
    added = with_tasks - floor
    cpu_per_minute = statistics.median(per_wake) * 2
    print(f"tasks: {count}, wakes measured: {wakes}")
    print(f"idle PSS floor: {floor / 1024:.1f} MB; with tasks: {with_tasks / 1024:.1f} MB;"
          f" added {added / 1024:.2f} MB = {100 * added / floor:.2f}% (budget ≤ 2%)")  # fmt: skip
    p95 = sorted(per_wake)[int(0.95 * len(per_wake))]
    print(f"wake: median {statistics.median(per_wake) * 1e3:.3f} ms CPU, p95 {p95 * 1e3:.3f} ms;"
          f" per minute {cpu_per_minute * 1e3:.3f} ms = {100 * cpu_per_minute / 60:.4f}% of one core"
          " (budget ≤ 2%)")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--wakes", type=int, default=600)
    args = parser.parse_args()
    asyncio.run(main(args.tasks, args.wakes))
