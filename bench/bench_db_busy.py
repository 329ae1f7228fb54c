"""The event loop while the database is held (issue 24 item 2).

Another process holds `BEGIN EXCLUSIVE` on the app's database (as another program, or a second
CashCode, would) while the in-process app (`build_app`, real SQLite, no HTTP) answers routes:

- stall: the longest gap of a 10 ms ticker on the loop while 10 `chats.rename` calls wait for
  the locked database at once (each answers `database_busy`); and how long the last one took;
- list: `chats.list` p50/p95 (`--runs` calls) while the database is held, against the same
  calls with nothing held (the floor, same run);
- own write: `chats.list` p50/p95 while a thread of ours holds a write transaction (an import or
  an index run does), against the same floor.

`--app-root DIR` measures the `app/` package of another checkout (e.g. the commit before the
store lane, exported with `git archive <commit> app | tar -x -C DIR`), so before and after are
measured by the same script on the same machine.

Run from the repo root: .venv/bin/python bench/bench_db_busy.py [--runs 50] [--app-root DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN EXCLUSIVE")
print("LOCKED", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--app-root", type=Path, default=ROOT)
    return parser.parse_args()


def _hold(db: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "LOCKED"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.wait(timeout=30)
    for pipe in (holder.stdin, holder.stdout):
        if pipe is not None:
            pipe.close()


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"{statistics.median(ordered) * 1000:.1f} / {p95 * 1000:.1f} ms"


async def _list_times(app: Any, runs: int) -> tuple[list[float], int]:
    times, failed = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        envelope = await app.invoke("chats.list", {})
        times.append(time.perf_counter() - started)
        failed += not envelope["ok"]
    return times, failed


async def _stall(app: Any, chats: list[str]) -> tuple[float, float, int]:
    longest = 0.0

    async def tick() -> None:
        nonlocal longest
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    ticker = asyncio.get_running_loop().create_task(tick())
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    answers = await asyncio.gather(
        *(app.invoke("chats.rename", {"chat_id": c, "title": "x"}) for c in chats)
    )
    took = time.perf_counter() - started
    await asyncio.sleep(0.05)  # the ticker's next tick records a stall that just ended
    ticker.cancel()
    await asyncio.gather(ticker, return_exceptions=True)
    return longest, took, sum(1 for a in answers if not a["ok"] and a["error"]["code"] == "database_busy")


async def main(runs: int) -> None:
    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        paths = AppPaths(tmp / "data", tmp / "config", tmp / "logs", tmp / "cache")
        app = build_app(paths, {}, secrets=SecretStore(backend=MemoryKeyring()), workspace=tmp)
        try:
            chats = [(await app.invoke("chats.create", {"title": f"c{i}"}))["data"]["id"] for i in range(10)]
            floor, _ = await _list_times(app, runs)

            holder = _hold(paths.db_path)
            try:
                longest, took, busy = await _stall(app, chats)
                held, held_failed = await _list_times(app, runs)
            finally:
                _release(holder)

            entered, leave = threading.Event(), threading.Event()

            def long_write() -> None:
                with app.ctx.db.transaction() as conn:
                    conn.execute("UPDATE chats SET title = title")
                    entered.set()
                    leave.wait(60)

            writer = threading.Thread(target=long_write)
            writer.start()
            entered.wait(10)
            try:
                own, own_failed = await _list_times(app, runs)
            finally:
                leave.set()
                writer.join(30)
        finally:
            await app.aclose()
    print(f"stall: longest loop gap {longest * 1000:.0f} ms while 10 renames waited; "
          f"all answered in {took:.2f} s, {busy}/10 database_busy")
    print(f"chats.list, nothing held (floor): {_ms(floor)}")
    print(f"chats.list, another process holds the database: {_ms(held)}, {held_failed}/{runs} failed")
    print(f"chats.list, our own thread holds a write: {_ms(own)}, {own_failed}/{runs} failed")


if __name__ == "__main__":
    args = _args()
    sys.path.insert(0, str(args.app_root.resolve()))
    if args.app_root.resolve() != ROOT:
        sys.path.insert(1, str(ROOT))  # the rest (tests helpers) from this checkout
    asyncio.run(main(args.runs))
