"""Agents budgets (issue 38): with 50 agents and 500 Skills, opening the new-chat picker and
starting a turn cost ≤ 1.05× of one agent (same run); `skill_search` for an agent with 500
Skills stays within its S14 budget (p95 ≤ 5 ms, as over 2,000 Skills).

Method (one process, one fake LLM server in its own process, zero delay):
- two profiles, each a real `CashCodeApp` with 500 valid Skills on disk and its background
  started (so every prompt lists the catalog): "one agent" (only `default`) and "50 agents"
  (49 naming 10 Skills each, one naming all 500);
- New chat: `chats.create` with the last used agent (the window loads the picker's list once,
  `agents.list`, reported for reference), median of N per profile;
- turn: `chat.send` → `turn_done` of a text turn in a fresh chat, the one-agent profile's chat on
  the default agent, the 50-agent profile's chat on the agent naming 500 Skills (the widest
  scope to filter); interleaved runs, medians and the median of paired ratios;
- skill_search: 2,000 Skills scanned by the real catalog; 300 queries through
  `SkillRuntime.search` for a chat whose agent allows 500 of them, and unscoped, p50/p95.

Run from the repo root: .venv/bin/python bench/bench_agents.py [--runs 40]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_skills import WORDS  # noqa: E402
from bench.bench_turn import KEY, TEXT_STEP, script, start_server  # noqa: E402


def write_skills(root: Path, count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    names = []
    for i in range(count):
        name = f"skill-{i:04d}-{rng.choice(WORDS[:40])}"
        words = " ".join(rng.choice(WORDS) for _ in range(8))
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: '{words}'\nversion: '1.0'\n---\n# {name}\n{words}\n",
            encoding="utf-8",
        )
        names.append(name)
    return names


async def make_profile(tmp: Path, root: str, agents: int, skills: int) -> tuple[Any, dict[str, str], str]:
    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring

    (tmp / "ws").mkdir(parents=True)
    paths = AppPaths(tmp / "data", tmp / "config", tmp / "logs", tmp / "cache")
    names = write_skills(paths.data_dir / "skills" / "user", skills)
    env = {"HOME": str(tmp), "CASHCODE_TASKS_SCHEDULER": "off", "CASHCODE_DREAM": "off"}
    keyring = MemoryKeyring()  # type: ignore[no-untyped-call]
    app = build_app(paths, env, secrets=SecretStore(backend=keyring), workspace=tmp / "ws")
    saved = await app.invoke(
        "providers.save",
        {"name": "bench", "kind": "chat_completions", "base_url": root + "/v1", "api_key": KEY},
    )
    model = {"provider_id": saved["data"]["id"], "model": "fake-model"}
    agent = "default"
    for i in range(agents - 1):
        wide = i == agents - 2
        spec = {
            "name": f"agent {i}",
            "persona": f"You are agent {i}.",
            "skills": names if wide else names[i * 10 : i * 10 + 10],
        }
        made = await app.invoke("agents.add", {"spec": spec})
        assert made["ok"], made
        if wide:
            agent = made["data"]["id"]
    await app.start_background()
    return app, model, agent


async def timed(fn: Any) -> float:
    start = time.perf_counter()
    await fn()
    return (time.perf_counter() - start) * 1000


async def bench_app(runs: int) -> list[str]:
    proc, root = start_server()
    tmp = Path(tempfile.mkdtemp(prefix="cashcode-bench-agents-"))
    try:
        one = await make_profile(tmp / "one", root, 1, 500)
        many = await make_profile(tmp / "many", root, 50, 500)
        done = asyncio.Event()
        for app, _, _ in (one, many):
            app.subscribe(lambda e: done.set() if e.type in ("turn_done", "turn_failed") else None)

        async def turn(profile: tuple[Any, dict[str, str], str]) -> float:
            app, model, agent = profile
            chat = (await app.invoke("chats.create", {"agent_id": agent}))["data"]["id"]
            script(root, TEXT_STEP)
            done.clear()

            async def send() -> None:
                ref = await app.invoke("chat.send", {"chat_id": chat, "text": "hi", "model": model})
                assert ref["ok"], ref
                await done.wait()

            return await timed(send)

        picker: dict[str, list[float]] = {"one": [], "many": []}
        new_chat: dict[str, list[float]] = {"one": [], "many": []}
        turns: dict[str, list[float]] = {"one": [], "many": []}
        await turn(one), await turn(many)  # warm-up
        for _ in range(runs):  # interleaved, so drift and noise hit both alike
            for key, profile in (("one", one), ("many", many)):
                app = profile[0]
                picker[key].append(await timed(lambda app=app: app.invoke("agents.list", {})))
                agent = {"agent_id": profile[2], "lazy": True}  # what New chat asks (the list is cached)
                new_chat[key].append(
                    await timed(lambda app=app, agent=agent: app.invoke("chats.create", agent))
                )
                turns[key].append(await turn(profile))
        rows = []
        for label, data in (
            ("New chat with the last used agent (chats.create)", new_chat),
            ("text turn (chat.send → turn_done)", turns),
            ("the picker's list, loaded once per window (agents.list)", picker),
        ):
            m1, m50 = statistics.median(data["one"]), statistics.median(data["many"])
            paired = statistics.median(b / a for a, b in zip(data["one"], data["many"], strict=True))
            verdict = "met" if m50 / m1 <= 1.05 else "not met"
            ratios = f"{m50 / m1:.3f}× / {paired:.3f}×"
            rows.append(f"| {label} | {m1:.2f} ms | {m50:.2f} ms | {ratios} | ≤ 1.05× | {verdict} |")
        for app, _, _ in (one, many):
            await app.aclose()
        return rows
    finally:
        proc.terminate()


def bench_search(queries: int = 300) -> list[str]:
    from app.contracts.agents import Allowed
    from app.skills.runtime import RuntimeConfig, SkillRuntime

    tmp = Path(tempfile.mkdtemp(prefix="cashcode-bench-agents-search-"))
    names = write_skills(tmp / "data" / "skills" / "user", 2000)
    (tmp / "ws").mkdir()
    runtime = SkillRuntime(RuntimeConfig(tmp / "data", tmp, lambda: tmp / "ws", {}), None)
    runtime.begin_turn("scoped", "t", Allowed.only(names[::4]))  # 500 of the 2,000
    snapshot = runtime.snapshot()
    rng = random.Random(3)
    qs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))) for _ in range(queries)]
    runtime.search(qs[0], 10, snapshot)  # the one-off index build
    rows = []
    for label, chat in (("all 2,000 (default agent)", None), ("an agent with 500 of them", "scoped")):
        times = []
        for q in qs:
            start = time.perf_counter()
            runtime.search(q, 10, snapshot, chat_id=chat)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p50, p95 = statistics.median(times), times[int(len(times) * 0.95) - 1]
        verdict = "met" if p95 <= 5 else "not met"
        rows.append(
            f"| skill_search, {label}, p50 / p95 | {p50:.2f} / {p95:.2f} ms | p95 ≤ 5 ms | {verdict} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    print(f"runs per profile: {args.runs}")
    print(
        "| step | one agent (median) | 50 agents (median) "
        "| ratio of medians / median of paired ratios | budget | verdict |"
    )
    print("|---|---|---|---|---|---|")
    for row in asyncio.run(bench_app(args.runs)):
        print(row)
    print()
    print("| metric | measured | budget | verdict |")
    print("|---|---|---|---|")
    for row in bench_search():
        print(row)


if __name__ == "__main__":
    main()
