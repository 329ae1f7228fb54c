"""Scale benchmark (issue 16 item 3): the app with a year of use against the app with nothing,
in the same run. Prints Markdown table rows.

Profiles: "empty" (a provider, no chats) and "year" (bench/seed_profile.py: 10,000 chats,
~1,100,000 messages, one chat of 100,000; the cached database is copied in once per run of
this script). Both have the same settings and provider.

Method
- Desktop, window visible and idle memory: the REAL window (`python -m app.desktop`) under a
  private Xvfb, launched alternately on the empty and the year profile, `--runs` times each.
  Visible = spawn → the window's `loaded` mark; idle memory = PSS summed over every process of
  the app's session (Python + Qt WebEngine processes) IDLE_S after `loaded` (the chat list has
  long been fetched and rendered by then). The verdict uses the ratio year / empty of each pair.
- Chat-list scrolling: `cashcode serve` on the year profile, Debian's Chromium (Playwright).
  In the page, a script scrolls the sidebar list by SCROLL_PX every animation frame for
  SCROLL_FRAMES frames (pages load as it nears the end, as for a user). For each frame it
  records (a) the interval between animation frames and (b) the frame's work: from the
  list's `scroll` event (Vue patches the rows in its handler's microtasks) to a task queued
  from the next animation-frame callback, which runs only after that frame's style, layout and
  paint. Budget: work ≤ 16 ms per frame (p95), no long frames. Floor, same page and run: a
  plain 2,000-row list (static DOM, no framework) laid over the sidebar, scrolled the same way;
  under load the ratio to it is the figure to judge.
- Search: the `chats.search` route (what the sidebar calls: up to 30 chats, their hits grouped,
  attachment texts searched too; snippets and highlight segments included) in-process on the
  year profile: the bench/bench_chat.py queries plus two-character
  Chinese words, each 3 times, p50 / p95 / max. Also the first `chats.list` page: time and
  JSON size, the thing the sidebar loads at start.

- Opening the 100,000-message chat: `cashcode serve` on the year profile in Chromium, a fresh
  page each time (reloaded, so no history is cached in the store); from the hash change that
  opens the chat to the first frame painted with its messages (MutationObserver → rAF → task).
  Floor, same page and run, alternated: a 10-message chat opened the same way. Budget ≤ 100 ms.

    .venv/bin/python bench/bench_scale.py [--runs 3] [--only desktop|scroll|search|open]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_chat import QUERIES as CHAT_QUERIES  # noqa: E402
from seed_profile import ProfileSize, ensure_profile, stats  # noqa: E402

from tests.desktop.harness import app_dirs_env, desktop_command, launch, wait_for_mark  # noqa: E402
from tests.desktop.procs import session_pss_kib  # noqa: E402

IDLE_S = 5.0
SCROLL_PX = 60  # per frame: 3,600 px/s, a fast flick
SCROLL_FRAMES = 600
# The search bench's queries (bench_chat.py), plus short CJK terms and a query that matches nothing.
QUERIES = [*CHAT_QUERIES, "天气", "数据库", "xylophone aardvark"]
DEAD_URL = "http://127.0.0.1:9/v1"  # the provider is never called: nothing here sends a turn


def load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def pctl(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


# ---- profiles ------------------------------------------------------------------------------


def make_env(base: Path, database: Path | None) -> dict[str, str]:
    env = app_dirs_env(base)
    if database is not None:
        data = Path(env["CASHCODE_DATA_DIR"])
        data.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(database, data / "cashcode.sqlite3")
    (base / "ws").mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "tests.desktop.seed", "--base-url", DEAD_URL, "--workspace", str(base / "ws")],
        cwd=ROOT, env={**os.environ, **env}, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return env


# ---- desktop: visible and idle memory ------------------------------------------------------


def desktop_once(display: str, env: dict[str, str]) -> tuple[float, float]:
    app = launch(desktop_command(), env, display, cdp=False)
    visible = wait_for_mark(app, "loaded", timeout_s=120) - app.started_at
    time.sleep(IDLE_S)  # idle means idle: nothing to wait for, the app is left alone
    pss = session_pss_kib(app.proc.pid) / 1024
    app.close_window()
    app.leftovers()
    return visible, pss


def desktop_rows(envs: dict[str, dict[str, str]], runs: int) -> list[str]:
    from tests.desktop.xvfb import xvfb

    pairs: list[dict[str, tuple[float, float]]] = []
    with xvfb() as display:
        desktop_once(display.name, envs["empty"])  # warm-up: the OS file cache, Qt's caches
        for i in range(runs):
            pair = {name: desktop_once(display.name, env) for name, env in envs.items()}
            pairs.append(pair)
            (ev, ep), (yv, yp) = pair["empty"], pair["year"]
            print(f"  run {i + 1}: visible {ev:.2f} / {yv:.2f} s, PSS {ep:.0f} / {yp:.0f} MB ({load()})")
    rows = []
    kinds = (("window visible", 0, "s", "—"), ("idle PSS, all processes", 1, "MB", "≤ 1.1x"))
    for label, k, unit, budget in kinds:
        empty = [p["empty"][k] for p in pairs]
        year = [p["year"][k] for p in pairs]
        ratios = [y / e for y, e in zip(year, empty, strict=True)]
        fmt = ".2f" if unit == "s" else ".0f"
        rows.append(
            f"| {label}, year profile vs empty (median of {runs}) | {statistics.median(empty):{fmt}} {unit}"
            f" | {statistics.median(year):{fmt}} {unit} | {statistics.median(ratios):.2f}x"
            f" ({min(ratios):.2f}–{max(ratios):.2f}) | {budget} |"
        )
    return rows


# ---- chat-list scrolling in Chromium -------------------------------------------------------

SCROLL_JS = """([selector, px, frames]) => new Promise((resolve) => {
  const list = document.querySelector(selector);
  const out = { work: [], interval: [], rows: [], end: 0 };
  let scrolledAt = null, last = null, n = 0;
  list.addEventListener('scroll', () => { if (scrolledAt === null) scrolledAt = performance.now(); }, true);
  const channel = new MessageChannel();
  channel.port1.onmessage = (ev) => { if (ev.data !== null) out.work.push(performance.now() - ev.data); };
  function frame(now) {
    if (last !== null) out.interval.push(now - last);
    last = now;
    // The task below runs after this frame's rendering; the scroll event of the previous
    // frame's scrollTop change fired at the start of this frame, before the rAF callbacks.
    channel.port2.postMessage(scrolledAt);
    scrolledAt = null;
    if (n++ >= frames) {
      out.rows.push(list.querySelectorAll('li').length);
      out.end = list.scrollTop;
      setTimeout(() => resolve(out), 50);
      return;
    }
    list.scrollTop += px;
    if (n % 100 === 0) out.rows.push(list.querySelectorAll('li').length);
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
})"""


# The floor, in the same page: a plain list (no Vue, no virtualisation) of 2,000 static rows of
# the same size, scrolled the same way. What it costs is the browser's and the machine's share.
FLOOR_JS = """() => {
  const list = document.querySelector('[data-testid=chat-list]');
  const box = list.getBoundingClientRect();
  const floor = document.createElement('ul');
  floor.id = 'bench-floor';
  floor.style.cssText = `position:fixed;left:${box.left}px;top:${box.top}px;width:${box.width}px;`
    + `height:${box.height}px;overflow-y:auto;margin:0;padding:0;list-style:none;background:#fff;z-index:9`;
  for (let i = 0; i < 2000; i++) {
    const li = document.createElement('li');
    li.style.height = '44px';
    li.textContent = 'Static row ' + i;
    floor.appendChild(li);
  }
  document.body.appendChild(floor);
}"""


@contextmanager
def served_in_chromium(env: dict[str, str]) -> Iterator[tuple[str, BrowserContext]]:
    """`cashcode serve` on `env` and a Chromium context of the window's size (it keeps the
    session cookie): yields the one-time start URL and the context."""
    from playwright.sync_api import sync_playwright

    from tests.e2e.browser_helpers import launch_chromium
    from tests.server.process import free_port, serve_process

    serve_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
    serving = serve_process(["--no-open", "--port", str(free_port())], serve_env, cwd=ROOT)
    with serving as served, sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            yield served.start_url, browser.new_context(viewport={"width": 1280, "height": 860})
        finally:
            browser.close()


def scroll_rows(env: dict[str, str], runs: int) -> list[str]:
    from playwright.sync_api import expect

    work: list[float] = []
    floor_work: list[float] = []
    intervals: list[float] = []
    most_rows = 0
    with served_in_chromium(env) as (start_url, context):
        ui_url = ""
        for i in range(runs):
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(ui_url or start_url)  # the start token works once: then the UI's own address
            ui_url = ui_url or page.url
            page.get_by_test_id("nav-chat").click()
            expect(page.get_by_test_id("chat-list-item").first).to_be_visible(timeout=60_000)
            app_list = "[data-testid=chat-list]"
            result: dict[str, Any] = page.evaluate(SCROLL_JS, [app_list, SCROLL_PX, SCROLL_FRAMES])
            page.evaluate(FLOOR_JS)
            bare: dict[str, Any] = page.evaluate(SCROLL_JS, ["#bench-floor", SCROLL_PX, SCROLL_FRAMES])
            run_work, run_int = result["work"], result["interval"]
            work += run_work
            intervals += run_int
            floor_work += bare["work"]
            most_rows = max(most_rows, *result["rows"])
            print(
                f"  scroll run {i + 1}: work p95 {pctl(run_work, 95):.1f} ms"
                f" (floor {pctl(bare['work'], 95):.1f}),"
                f" max {max(run_work):.1f}; frame interval p95 {pctl(run_int, 95):.1f} ms;"
                f" scrolled {result['end']:.0f} px; rows in DOM ≤ {max(result['rows'])} ({load()})"
            )
            page.close()
    long_frames = sum(1 for x in intervals if x > 25) / len(intervals) * 100
    return [
        f"| chat list scroll (year profile, {SCROLL_PX} px/frame × {SCROLL_FRAMES}, {runs} runs):"
        f" work per frame p50 / p95 / max; floor = a static 2,000-row list in the same page"
        f" | {statistics.median(floor_work):.1f} / {pctl(floor_work, 95):.1f} / {max(floor_work):.1f} ms"
        f" | {statistics.median(work):.1f} / {pctl(work, 95):.1f} / {max(work):.1f} ms"
        f" | p95 {pctl(work, 95) / max(0.1, pctl(floor_work, 95)):.2f}x | p95 ≤ 16 ms |",
        f"| chat list scroll: interval between frames p50 / p95; frames > 25 ms | — |"
        f" {statistics.median(intervals):.1f} / {pctl(intervals, 95):.1f} ms; {long_frames:.1f} % | — | — |",
        f"| chat list scroll: rows in the DOM (of 10,000 chats) | — | ≤ {most_rows} | — | — |",
    ]


# ---- opening the 100,000-message chat in Chromium ------------------------------------------

# From the hash change that opens a chat to the first frame painted with its messages in the
# DOM: a MutationObserver sees the first message element, the rAF callback of that frame posts
# a task, and the task runs after the frame's style, layout and paint.
OPEN_JS = """([id]) => new Promise((resolve) => {
  const sel = '[data-testid=message-user],[data-testid=message-assistant]';
  const channel = new MessageChannel();
  const t0 = performance.now();
  let seen = false;
  const observer = new MutationObserver(() => {
    if (seen || !document.querySelector(sel)) return;
    seen = true;
    requestAnimationFrame(() => channel.port2.postMessage(null));
  });
  channel.port1.onmessage = () => {
    observer.disconnect();
    channel.port1.close();
    resolve({ ms: performance.now() - t0, shown: document.querySelectorAll(sel).length });
  };
  observer.observe(document.body, { childList: true, subtree: true });
  location.hash = '#/chat/' + id;
})"""


def open_targets(database: Path) -> tuple[str, int, str, int]:
    """The chat with the most messages, and a floor chat of about 10 messages."""
    import sqlite3

    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        big = db.execute(
            "SELECT chat_id, message_count FROM chat_activity ORDER BY message_count DESC LIMIT 1"
        )
        big_id, big_n = big.fetchone()
        small = db.execute(
            "SELECT chat_id, message_count FROM chat_activity WHERE message_count >= 10"
            " ORDER BY message_count, chat_id LIMIT 1"
        )
        small_id, small_n = small.fetchone()
    return big_id, big_n, small_id, small_n


def open_rows(env: dict[str, str], database: Path, runs: int) -> list[str]:
    from playwright.sync_api import expect

    big_id, big_n, small_id, small_n = open_targets(database)
    times: dict[str, list[float]] = {"big": [], "floor": []}
    with served_in_chromium(env) as (start_url, context):
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(start_url)  # the start token works once; then the UI's own address
        home = page.url.split("#")[0] + "#/"
        for i in range(runs):
            for name, chat_id in (("big", big_id), ("floor", small_id)) if i % 2 == 0 else (
                    ("floor", small_id), ("big", big_id)):  # fmt: skip
                page.goto(home)
                page.reload()  # a fresh page: nothing of the chat is cached in the store
                expect(page.get_by_test_id("chat-list-item").first).to_be_visible(timeout=60_000)
                page.wait_for_timeout(300)  # start-up work settled
                result: dict[str, Any] = page.evaluate(OPEN_JS, [chat_id])
                assert result["shown"] > 0, result
                times[name].append(result["ms"])
            last = f"big {times['big'][-1]:.1f} ms, floor {times['floor'][-1]:.1f} ms"
            print(f"  open run {i + 1}: {last} ({load()})")
    big, floor = times["big"], times["floor"]
    return [
        f"| open the {big_n:,}-message chat in Chromium: hash change → first frame painted with its"
        f" messages, p50 / p95 / max ({runs} fresh pages); floor = a {small_n}-message chat the same way"
        f" | {statistics.median(floor):.1f} / {pctl(floor, 95):.1f} / {max(floor):.1f} ms"
        f" | {statistics.median(big):.1f} / {pctl(big, 95):.1f} / {max(big):.1f} ms"
        f" | p50 {statistics.median(big) / statistics.median(floor):.2f}x | ≤ 100 ms |",
    ]


# ---- search and the first chat-list page (in-process, the real routes) ----------------------


async def search_rows(env: dict[str, str], runs: int) -> list[str]:
    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths

    app = build_app(AppPaths.from_env(env), {**os.environ, **env, "CASHCODE_DREAM": "off"})
    try:
        per_run: list[list[float]] = []
        hits: dict[str, int] = {}
        for i in range(runs):
            times = []
            for query in QUERIES:
                for _ in range(3):
                    t0 = time.perf_counter()
                    found = await app.invoke("chats.search", {"query": query, "limit": 30})
                    times.append((time.perf_counter() - t0) * 1000)
                    assert found["ok"], found
                hits[query] = sum(g["hit_count"] for g in found["data"]["groups"])  # grouped per chat
            per_run.append(times)
            p50, p95 = statistics.median(times), pctl(times, 95)
            print(f"  search run {i + 1}: p50 {p50:.1f} / p95 {p95:.1f} ms ({load()})")
        print("  hits per query:", hits)
        listing, size = [], 0
        for _ in range(20):
            t0 = time.perf_counter()
            page = await app.invoke("chats.list", {})
            listing.append((time.perf_counter() - t0) * 1000)
            size = len(json.dumps(page))
    finally:
        await app.aclose()
    p95s = [pctl(t, 95) for t in per_run]
    everything = [x for t in per_run for x in t]
    return [
        f"| `chats.search` over the year profile ({len(QUERIES)} queries × 3, {runs} runs): p50 / p95 / max"
        f" | — | {statistics.median(everything):.1f} / {statistics.median(p95s):.1f}"
        f" ({min(p95s):.1f}–{max(p95s):.1f}) / {max(everything):.1f} ms | — | p95 ≤ 100 ms |",
        f"| `chats.list` first page (100 of 10,000 chats): median time; JSON size | — |"
        f" {statistics.median(listing):.1f} ms; {size / 1024:.0f} KiB | — | — |",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=["desktop", "scroll", "search", "open"], action="append")
    parser.add_argument("--chats", type=int, default=10_000, help="profile size (a smaller one for trials)")
    parser.add_argument("--messages", type=int, default=1_100_000)
    parser.add_argument("--big", type=int, default=100_000)
    args = parser.parse_args()
    parts = args.only or ["desktop", "scroll", "search", "open"]
    database = ensure_profile(ProfileSize(args.chats, args.messages, args.big))
    s = stats(database)
    print(
        f"profile: {s['chats']:,} chats, {s['messages']:,} messages, {s['bytes'] / 1e6:.0f} MB,"
        f" {s['bytes_per_message']:.0f} bytes per message ({load()})"
    )
    rows = ["| metric | empty profile | year profile | ratio | budget |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="cashcode-scale-") as tmp:
        envs = {"empty": make_env(Path(tmp) / "empty", None), "year": make_env(Path(tmp) / "year", database)}
        if "desktop" in parts:
            rows += desktop_rows(envs, args.runs)
        if "scroll" in parts:
            rows += scroll_rows(envs["year"], args.runs)
        if "search" in parts:
            rows += asyncio.run(search_rows(envs["year"], args.runs))
        if "open" in parts:
            rows += open_rows(envs["year"], database, max(args.runs, 10))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
