"""Memory budgets (issue 9): opening a 100,000-message chat with summaries ≤ 100 ms;
consolidation adds 0 ms before `turn_done`; explicit-memory search over 100,000 memories p95
≤ 20 ms.

Method (all in-process on a real app and real SQLite in a temp folder):
- open: one chat of 100,000 messages (about 40 characters each, a tool call/result pair every
  tenth turn) and 200 cumulative summaries, inserted in bulk. "Opening" is what the UI and the
  next turn do: `chats.get` (newest page), `memory.summaries` (the divider) and the model context
  (latest summary + messages from its keep_from_cursor). Median and p95 of `--runs`.
- turn_done: paired turns through the real loop against the fake LLM server (its own process,
  zero delay): one with the consolidation threshold exceeded (its summary reply is slowed down
  by 1 s, so it is certainly still running when `turn_done` arrives) and one with the threshold
  out of reach. Time from `chat.send` to `turn_done`; the median of the paired differences is
  what consolidation adds.
- search: 100,000 memories (8-15 words from a 5,000-word vocabulary, 0-3 of 50 tags), then the
  `memories.search` route with one keyword, two keywords, a keyword plus a tag, a tag only,
  and a two-letter keyword (the LIKE path); p50/p95 per kind and overall.

Run from the repo root: .venv/bin/python bench/bench_memory.py [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_turn import KEY, script, start_server  # noqa: E402

MESSAGES = 100_000
MEMORIES = 100_000


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def row(metric: str, values: list[float], budget: str) -> str:
    p50, high = statistics.median(values), p95(values)
    if high < 1:
        return f"| {metric} | p50 {p50 * 1000:.0f} / p95 {high * 1000:.0f} µs | {budget} |"
    return f"| {metric} | p50 {p50:.1f} / p95 {high:.1f} ms | {budget} |"


async def timed(body: Callable[[], Awaitable[Any]], runs: int, warmup: int = 3) -> list[float]:
    out = []
    for i in range(runs + warmup):
        started = time.perf_counter()
        await body()
        if i >= warmup:
            out.append((time.perf_counter() - started) * 1000)
    return out


def make_app(tmp: Path) -> Any:
    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring

    paths = AppPaths(tmp / "data", tmp / "config", tmp / "logs", tmp / "cache")
    return build_app(
        paths, {"CASHCODE_DREAM": "off"}, secrets=SecretStore(backend=MemoryKeyring()), workspace=tmp
    )


def seed_chat(app: Any, messages: int = MESSAGES, summaries: int = 200) -> str:
    chat = app.ctx.chats.create("big").id
    now = "2026-12-01T00:00:00.000000Z"
    rows: list[tuple[Any, ...]] = []
    for cursor in range(1, messages + 1):
        turn = f"t{(cursor - 1) // 4}"
        role = ("user", "assistant", "tool", "assistant")[(cursor - 1) % 4]
        calls = "[]"
        call_id = None
        if role == "assistant" and (cursor - 1) % 4 == 1:
            calls = json.dumps([{"id": f"c{cursor}", "name": "read_file", "arguments": "{}"}])
        if role == "tool":
            call_id = f"c{cursor - 1}"
        rows.append(
            (chat, cursor, turn, role, f"message {cursor} " + "x" * 30, calls, call_id, None, now, "{}")
        )
    with app.ctx.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO messages (chat_id, cursor, turn_id, role, content, tool_calls, tool_call_id, name,"
            " created_at, meta) VALUES (?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        for i in range(1, summaries + 1):
            keep = messages - 400 if i == summaries else min(messages - 400, i * 499 + 1)
            conn.execute(
                "INSERT INTO chat_summaries (chat_id, content, keep_from_cursor, created_at)"
                " VALUES (?,?,?,?)",
                (chat, f"Summary {i}: " + "y" * 4000, keep, now),
            )
    return str(chat)


async def bench_open(app: Any, runs: int) -> list[str]:
    from app.memory.capability import MemoryCapability
    from app.memory.summaries import ConsolidatedStore

    chat = seed_chat(app)
    cap = next(c for c in app.capabilities if isinstance(c, MemoryCapability))
    store = ConsolidatedStore(app.ctx.chats, cap.services.chats, cap.services.summaries)

    async def open_ui() -> None:
        detail = await app.invoke("chats.get", {"chat_id": chat})
        summaries = await app.invoke("memory.summaries", {"chat_id": chat})
        assert detail["ok"] and summaries["ok"]

    async def load_context() -> None:
        store.history(chat)

    async def both() -> None:
        await open_ui()
        await load_context()

    ui, context_times, total = (
        await timed(open_ui, runs),
        await timed(load_context, runs),
        await timed(both, runs),
    )
    # Floor in the same run: the same page, divider and context from a 1,000-message chat with
    # one summary (interleaved with the big chat, so load changes hit both alike).
    small = seed_chat(app, 1_000, 1)
    big_runs: list[float] = []
    small_runs: list[float] = []
    for _ in range(runs):
        for name, out in ((chat, big_runs), (small, small_runs)):
            started = time.perf_counter()
            await app.invoke("chats.get", {"chat_id": name})
            await app.invoke("memory.summaries", {"chat_id": name})
            store.history(name)
            out.append((time.perf_counter() - started) * 1000)
    ratio = statistics.median(big_runs) / statistics.median(small_runs)
    context = store.history(chat)
    size = f"{MESSAGES:,}-message chat with 200 summaries"
    return [
        row(
            f"floor: the same on a 1,000-message chat with 1 summary (big/floor p50 ratio {ratio:.2f})",
            small_runs,
            "—",
        ),
        row(f"open a {size}: newest page + divider (chats.get + memory.summaries)", ui, "—"),
        row(
            f"open a {size}: model context (latest summary + {len(context) - 1} messages)", context_times, "—"
        ),
        row(f"open a {size}: both", total, "≤ 100 ms"),
    ]


async def bench_plan(app: Any, runs: int) -> list[str]:
    """The after-turn consolidation check (issue 16): `Consolidator.plan` on a 100,000-message
    chat never summarised (over the threshold: plans a bounded slice) and on the same chat
    summarised up to its last 400 messages (within it: the usual case), against the whole-path
    read it replaced (`path_messages` from the summary's cursor + `plan_consolidation`),
    interleaved in the same run."""
    from app.memory.capability import MemoryCapability
    from app.memory.consolidator import plan_consolidation

    cap = next(c for c in app.capabilities if isinstance(c, MemoryCapability))
    consolidator, summaries, chats = cap.services.consolidator, cap.services.summaries, app.ctx.chats
    threshold = app.ctx.settings.load().memory_consolidation_chars

    def whole(chat: str) -> Any:  # what `plan` did before: the same lookups, the whole tail
        summaries.newest_id(chat)
        leaf = chats.leaf(chat)
        previous = summaries.latest(chat, leaf=leaf)
        tail = chats.path_messages(chat, from_cursor=previous.keep_from_cursor if previous else 0, leaf=leaf)
        return plan_consolidation(chat, previous, tail, threshold)

    out = []
    cases = (("never summarised (plans a slice)", 0, runs), ("summarised, last 400 kept", 1, runs * 20))
    for label, count, repeat in cases:
        chat = seed_chat(app, MESSAGES, count)
        new: list[float] = []
        old: list[float] = []
        for _ in range(repeat):
            for body, times in ((consolidator.plan, new), (whole, old)):
                started = time.perf_counter()
                body(chat)
                times.append((time.perf_counter() - started) * 1000)
        ratio = statistics.median(new) / statistics.median(old)
        before = f"consolidation check, {MESSAGES:,}-message chat {label}: whole-path read (before)"
        out.append(row(before, old, "—"))
        now = f"same: `Consolidator.plan` now (p50 ratio to before {ratio:.3f})"
        out.append(row(now, new, "no whole read"))
    return out


async def bench_turn_done(app: Any, runs: int) -> list[str]:
    from app.contracts.events import TurnDone

    proc, root = start_server()
    try:
        saved = await app.invoke(
            "providers.save",
            {"name": "bench", "kind": "chat_completions", "base_url": root + "/v1", "api_key": KEY},
        )
        pid = saved["data"]["id"]
        done: dict[str, asyncio.Event] = {}

        def on_event(event: Any) -> None:
            if isinstance(event, TurnDone) and event.turn_id in done:
                done[event.turn_id].set()

        app.subscribe(on_event)
        from app.memory.capability import MemoryCapability

        cap = next(c for c in app.capabilities if isinstance(c, MemoryCapability))
        long_text = "z" * 2_000

        async def send_and_wait(chat: str, text: str) -> float:
            started = time.perf_counter()
            ref = await app.invoke(
                "chat.send",
                {"chat_id": chat, "text": text, "model": {"provider_id": pid, "model": "fake-model"}},
            )
            turn_id = ref["data"]["turn_id"]
            done.setdefault(turn_id, asyncio.Event())
            await asyncio.wait_for(done[turn_id].wait(), 30)
            return (time.perf_counter() - started) * 1000

        async def one_turn(threshold: int, consolidates: bool) -> tuple[float, str]:
            await app.invoke("memory.settings_update", {"consolidation_chars": threshold})
            chat = (await app.invoke("chats.create", {}))["data"]["id"]
            if consolidates:  # a first exchange to fold: the kept part starts at a question (issue 39)
                script(root, {"text": "ok"})
                await send_and_wait(chat, "hi")
            steps: list[dict[str, Any]] = [{"text": long_text, "chunk_size": 500}]
            if consolidates:
                steps.append({"text": "summary", "delay_s": 1.0, "chunk_size": 100})
            script(root, *steps)
            elapsed = await send_and_wait(chat, long_text)
            running = cap.services.consolidator.is_running(chat)  # still summarising at turn_done?
            await app.wait_idle(chat)
            return elapsed, str(chat) if running else ""

        with_c, without, diffs = [], [], []
        for i in range(runs + 3):
            a, still_running = await one_turn(1_000, True)
            b, _ = await one_turn(10_000_000, False)
            await cap.wait_background()
            if i >= 3:
                assert still_running, "the summary must still be running at turn_done"
                with_c.append(a)
                without.append(b)
                diffs.append(a - b)
        hook = await hook_cost(app, cap)
        return [
            row("after_turn hook before turn_done (claim + schedule the summary task)", hook, "—"),
            row("send → turn_done, consolidation triggered", with_c, "—"),
            row("send → turn_done, no consolidation", without, "—"),
            f"| consolidation's cost before turn_done (median of paired differences) | "
            f"{statistics.median(diffs):+.2f} ms | 0 ms |",
        ]
    finally:
        proc.terminate()
        proc.wait(10)


async def bench_dream(app: Any, runs: int) -> list[str]:
    """Issue 39: a Dream run's wall time over a 1,000-line MEMORY.md, first with no provenance
    or tombstones, then with 1,000 line sources and 1,000 tombstones (scripted LLM, no delay).
    Turns never read either table (only save_memory and Dream do), so a turn gains nothing."""
    from app.contracts.messages import Message
    from app.memory.capability import MemoryCapability
    from app.memory.provenance import NewLine

    s = next(c for c in app.capabilities if isinstance(c, MemoryCapability)).services
    proc, root = start_server()
    try:
        saved = await app.invoke(
            "providers.save",
            {"name": "bench", "kind": "chat_completions", "base_url": root + "/v1", "api_key": KEY},
        )
        pid = saved["data"]["id"]
        base = [f"- Fact number {i} about topic {i % 37} and project {i % 11}" for i in range(1_000)]
        s.memory.write("\n".join(base) + "\n", "user")
        chat = app.ctx.chats.create("dream bench").id
        counter = iter(range(1_000_000))

        async def one_run() -> None:
            i = next(counter)
            said = [Message(role="user", content=f"I like item {i}"), Message(role="assistant", content="ok")]
            app.ctx.chats.append_turn(chat, f"bench-{i}", said)
            text = s.memory.read().text + f"- Likes item {i}\n"
            script(root, {"text": f"ADD: item {i}"}, {"text": text})
            outcome = await s.dream.run_once((pid, "fake-model"))
            assert outcome.status == "applied", outcome

        sources = [NewLine(line, chat, (1,)) for line in base]
        stones = [f"- Forgotten fact {i} about thing {i * 7} in place {i % 13}" for i in range(1_000)]
        plain: list[float] = []
        loaded: list[float] = []
        diffs: list[float] = []
        # Paired runs (without, then with; the tables are emptied between pairs, outside the
        # timing), so the machine's drift does not count as their cost.
        for i in range(runs + 2):
            started = time.perf_counter()
            await one_run()
            without = (time.perf_counter() - started) * 1000
            s.provenance.record("dream", None, sources)
            s.tombstones.add(stones, None)
            started = time.perf_counter()
            await one_run()
            with_them = (time.perf_counter() - started) * 1000
            with app.ctx.db.transaction() as conn:
                conn.execute("DELETE FROM memory_line_sources")
                conn.execute("DELETE FROM memory_tombstones")
            if i >= 2:
                plain.append(without)
                loaded.append(with_them)
                diffs.append(with_them - without)
        change = statistics.median(diffs) / statistics.median(plain) * 100
        return [
            row("Dream run, 1,000 MEMORY.md lines, no sources or tombstones", plain, "—"),
            row("Dream run, same, with 1,000 line sources and 1,000 tombstones", loaded, "—"),
            f"| provenance and tombstones' cost (median paired difference) | {change:+.1f} % | ≤ 5 % |",
        ]
    finally:
        proc.terminate()
        proc.wait(10)


async def hook_cost(app: Any, cap: Any) -> list[float]:
    """The only memory work between storing a turn and `turn_done`: the after_turn hook."""
    from app.contracts.messages import Message
    from app.contracts.turn import TurnSpec

    chat = (await app.invoke("chats.create", {}))["data"]["id"]
    spec = TurnSpec(chat_id=chat, turn_id="t", user_text="hi", provider_id="p", model="m")
    messages = [Message(role="user", content="hi")]
    out = []
    for _ in range(500):
        started = time.perf_counter()
        cap.after_turn(spec, messages)
        out.append((time.perf_counter() - started) * 1000)
        await cap.wait_background()
    return out


def seed_memories(app: Any, rng: random.Random) -> tuple[list[str], list[str]]:
    from app.memory.explicit import _search_text

    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(4, 9))) for _ in range(5_000)})
    tags = [f"tag{i}" for i in range(50)]
    now = "2026-12-01T00:00:00.000000Z"
    memories, tag_rows = [], []
    for i in range(MEMORIES):
        mid = f"{i:08x}-0000-4000-8000-000000000000"
        text = " ".join(rng.choice(vocab) for _ in range(rng.randint(8, 15)))
        chosen = tuple(sorted(set(rng.sample(tags, rng.randint(0, 3)))))
        memories.append((i + 1, mid, text, json.dumps(chosen), _search_text(text, chosen), now, now))
        tag_rows.extend((t, i + 1, now) for t in chosen)
    with app.ctx.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO memories (num, id, content, tags, search_text, created_at, updated_at)"
            " VALUES (?,?,?,?,?,?,?)",
            memories,
        )
        conn.executemany("INSERT INTO memory_tags (tag, memory_num, updated_at) VALUES (?, ?, ?)", tag_rows)
    return vocab, tags


async def bench_search(app: Any, runs: int) -> list[str]:
    rng = random.Random(7)
    vocab, tags = seed_memories(app, rng)
    kinds: dict[str, Callable[[], dict[str, list[str]]]] = {
        "one keyword": lambda: {"words": [rng.choice(vocab)], "tags": []},
        "two keywords": lambda: {"words": [rng.choice(vocab), rng.choice(vocab)], "tags": []},
        "keyword + tag": lambda: {"words": [rng.choice(vocab)], "tags": [rng.choice(tags)]},
        "tag only": lambda: {"words": [], "tags": [rng.choice(tags)]},
        "two-letter keyword (LIKE scan)": lambda: {"words": [rng.choice(vocab)[:2]], "tags": []},
    }
    from app.memory.capability import MemoryCapability

    repo = next(c for c in app.capabilities if isinstance(c, MemoryCapability)).services.memories
    lines, everything, direct = [], [], []
    for name, make in kinds.items():

        async def search(make: Callable[[], dict[str, list[str]]] = make) -> None:
            found = await app.invoke("memories.search", make())
            assert found["ok"], found

        async def tool_search(make: Callable[[], dict[str, list[str]]] = make) -> None:
            query = make()
            repo.search(query["words"], query["tags"], limit=50)  # what search_memories asks for

        times = await timed(search, runs)
        everything.extend(times)
        direct.extend(await timed(tool_search, runs))
        lines.append(row(f"memories.search over {MEMORIES:,}: {name}", times, "—"))
    lines.append(
        row(
            f"memories.search route over {MEMORIES:,} (100 results max): all kinds", everything, "p95 ≤ 20 ms"
        )
    )
    lines.append(
        row(
            f"search_memories tool query over {MEMORIES:,} (50 results max): all kinds", direct, "p95 ≤ 20 ms"
        )
    )
    return lines


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--only", choices=["open", "plan", "turn", "search", "dream"])
    args = parser.parse_args()
    print("| metric | measured | budget |\n|---|---|---|")
    benches = (("open", bench_open), ("plan", bench_plan), ("turn", bench_turn_done))
    for name, bench in (*benches, ("search", bench_search), ("dream", bench_dream)):
        if args.only not in (None, name):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            app = make_app(Path(tmp))
            try:
                half, fifth = max(5, args.runs // 2), max(5, args.runs // 5)
                fewer = {"turn": half, "plan": fifth, "dream": half}
                runs = fewer.get(name, args.runs)
                for line in await bench(app, runs):
                    print(line, flush=True)
            finally:
                await app.aclose()


if __name__ == "__main__":
    asyncio.run(main())
