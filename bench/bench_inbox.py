"""Waiting runs budget (issue 35): a run that waits for an answer in the Inbox costs ≤ 0.1 % of
a core and ≤ 1 MB.

Method
- The real app (`build_app`, temp data dirs, an in-memory test keyring) with its background
  work started (`start_background`, as `serve` and the desktop do), a provider on the scripted
  LLM (`app/testing/fake_llm`, real HTTP on loopback).
- Floor: `--runs` chats each with one finished turn, nothing waiting: CPU time of this process
  (process time: every thread, the store lane included) over `--seconds` of idle, and PSS
  (/proc/self/smaps_rollup) after a settled idle.
- Then the same chats each send a turn whose model calls `write_file` (Ask mode): each turn waits
  on its approval, recorded as an Inbox item (the owner looks for answers from other processes
  once a second while any wait). The same CPU and PSS measurements again. Cost per waiting run
  = (with − floor) / runs, CPU as a share of one core.
- `chats.list` as the sidebar asks for it (`{"limit": 100}`), in process, 300 calls: median
  wall and CPU time a call, floor against waiting (bench/bench_inbox_ui.py measures it over
  REST on a real `serve`, with the UI's first paint).
- In-process answer latency: `inbox.answer` → the scripted LLM receives the resumed request, per
  answer (median), against the floor of the same request shape: `chat.send` → first request.

Run from the repo root: .venv/bin/python bench/bench_inbox.py [--runs 100] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.api.bootstrap import build_app  # noqa: E402
from app.contracts.events import AppEvent, ApprovalRequired, InboxChanged  # noqa: E402
from app.settings.paths import AppPaths  # noqa: E402
from app.settings.secrets import SecretStore  # noqa: E402
from app.testing.fake_keyring import MemoryKeyring  # noqa: E402
from app.testing.fake_llm import FakeLLMServer  # noqa: E402
from bench.bench_tasks import settled_pss  # noqa: E402

KEY = "sk-bench-123456"


def write(n: int) -> dict[str, Any]:
    """A `write_file` call of a new file each time (a write that changes nothing is not asked)."""
    return {"tool_calls": [{"name": "write_file", "arguments": {"path": f"n{n}.txt", "content": "hi"}}]}


async def idle_cpu(seconds: float) -> float:
    started = time.process_time()
    await asyncio.sleep(seconds)
    return time.process_time() - started


async def ok(app: Any, route: str, payload: dict[str, Any]) -> Any:
    reply = await app.invoke(route, payload)
    assert reply["ok"], reply
    return reply["data"]


async def until(check: Any, what: str, events: list[AppEvent] | None = None) -> None:
    try:
        async with asyncio.timeout(600):
            while True:
                if check():
                    return
                await asyncio.sleep(0.05)
    except TimeoutError:
        seen = sorted({e.type for e in events or []})
        raise SystemExit(f"timed out waiting for {what} (events seen: {seen})") from None


def _pending(events: list[AppEvent]) -> int:
    return sum(isinstance(e, InboxChanged) and e.status == "pending" for e in events)


async def list_cost(app: Any, calls: int = 300) -> tuple[float, float]:
    """`chats.list` as the sidebar asks for it, in process: median wall and CPU time a call (ms)."""
    wall, cpu = [], []
    for _ in range(calls):
        started, started_cpu = time.perf_counter(), time.process_time()
        await ok(app, "chats.list", {"limit": 100})
        wall.append((time.perf_counter() - started) * 1e3)
        cpu.append((time.process_time() - started_cpu) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


async def main(runs: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as llm:
        base = Path(tmp)
        (base / "ws").mkdir()
        paths = AppPaths(base / "data", base / "config", base / "logs", base / "cache")
        app = build_app(
            paths,
            {"CASHCODE_DREAM": "off"},
            workspace=base / "ws",
            secrets=SecretStore(backend=MemoryKeyring()),
        )
        await app.start_background()
        provider = await ok(
            app,
            "providers.save",
            {
                "name": "Fake",
                "kind": "chat_completions",
                "base_url": llm.openai_base_url,
                "api_key": KEY,
            },
        )
        fields = {k: provider[k] for k in ("id", "name", "kind", "base_url", "api_key")}
        await ok(app, "providers.save", {**fields, "parallel_requests": 0})
        await ok(app, "settings.update", {"approval_mode": "ask_writes"})
        model = {"provider_id": provider["id"], "model": "fake-model"}
        await ok(app, "inbox.list", {})  # routes bound, as after the UI's first page
        # Warm-up: one whole turn with one answered approval (the SDK and the tools imported).
        warm: list[AppEvent] = []
        off = app.subscribe(warm.append)
        llm.script(write(-1), {"text": "warm"})
        warm_chat = (await ok(app, "chats.create", {}))["id"]
        await ok(app, "chat.send", {"chat_id": warm_chat, "text": "write", "model": model})
        await until(lambda: _pending(warm) >= 1, "the warm-up approval")
        first = next(e for e in warm if isinstance(e, ApprovalRequired))
        await ok(app, "inbox.answer", {"id": first.approval_id, "decision": "once"})
        await until(lambda: any(e.type == "turn_done" for e in warm), "the warm-up turn")
        off()
        # The floor's chats: as many idle chats as will wait, each with one finished turn.
        llm.script(*({"text": f"answer {i}"} for i in range(runs)))
        chats = [(await ok(app, "chats.create", {}))["id"] for _ in range(runs)]
        idle_events: list[AppEvent] = []
        off = app.subscribe(idle_events.append)
        for chat in chats:
            await ok(app, "chat.send", {"chat_id": chat, "text": "hi", "model": model})
        await until(lambda: sum(e.type == "turn_done" for e in idle_events) >= runs, "the idle chats' turns")
        off()
        floor_pss = await settled_pss()
        floor_cpu = await idle_cpu(seconds)
        floor_list = await list_cost(app)

        events: list[AppEvent] = []
        app.subscribe(events.append)
        llm.script(*(write(i) for i in range(runs)))
        for chat in chats:
            await ok(app, "chat.send", {"chat_id": chat, "text": "write", "model": model})
        await until(lambda: _pending(events) >= runs, "every run to wait", events)
        waiting_pss = await settled_pss()
        waiting_cpu = await idle_cpu(seconds)
        waiting_list = await list_cost(app)

        # Answer latency, in process: answer → the resumed request reaches the server.
        approvals = [e for e in events if isinstance(e, ApprovalRequired)]
        answered: list[float] = []
        for approval in approvals[: min(20, runs)]:
            llm.script({"text": "done"})
            before = len(llm.model_requests())
            started = time.perf_counter()
            await ok(app, "inbox.answer", {"id": approval.approval_id, "decision": "deny"})
            await until(lambda: len(llm.model_requests()) > before, "the resumed request")  # noqa: B023
            answered.append(time.perf_counter() - started)
        floor_send: list[float] = []
        for _ in range(len(answered)):
            llm.script({"text": "done"})
            chat = (await ok(app, "chats.create", {}))["id"]
            before = len(llm.model_requests())
            started = time.perf_counter()
            await ok(app, "chat.send", {"chat_id": chat, "text": "hi", "model": model})
            await until(lambda: len(llm.model_requests()) > before, "the first request")  # noqa: B023
            floor_send.append(time.perf_counter() - started)
        for chat in chats:
            await app.invoke("chat.cancel", {"chat_id": chat})
        await app.aclose()
    cpu_share = (waiting_cpu - floor_cpu) / seconds / runs
    added_kb = (waiting_pss - floor_pss) / runs
    print(f"waiting runs: {runs}; idle window {seconds:g} s")
    print(f"CPU: floor {floor_cpu * 1e3:.1f} ms, with {runs} waiting {waiting_cpu * 1e3:.1f} ms;"
          f" per waiting run {100 * cpu_share:.4f}% of one core (budget ≤ 0.1%)")  # fmt: skip
    print(f"PSS: floor {floor_pss / 1024:.1f} MB, with {runs} waiting {waiting_pss / 1024:.1f} MB;"
          f" per waiting run {added_kb / 1024:.3f} MB (budget ≤ 1 MB)")  # fmt: skip
    print(f"chats.list {{limit: 100}} in process, median of 300: floor ({runs} idle chats)"
          f" wall {floor_list[0]:.2f} ms, CPU {floor_list[1]:.2f} ms;"
          f" with {runs} waiting wall {waiting_list[0]:.2f} ms,"
          f" CPU {waiting_list[1]:.2f} ms; ratio wall {waiting_list[0] / floor_list[0]:.2f}x,"
          f" CPU {waiting_list[1] / floor_list[1]:.2f}x (budget ≤ 1.1x)")  # fmt: skip
    if answered:
        over = statistics.median(answered) - statistics.median(floor_send)
        print(f"answer → resumed request: median {statistics.median(answered) * 1e3:.1f} ms;"
              f" floor (chat.send → request) {statistics.median(floor_send) * 1e3:.1f} ms;"
              f" over the floor {over * 1e3:.1f} ms (budget ≤ 50 ms)")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.seconds))
