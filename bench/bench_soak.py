"""Soak: 20 chats streaming at once through the real app against the scripted server.

Each chat sends turns back to back for the whole run (default 10 minutes; `--seconds` for a
short run). Every streamed answer is reassembled from its `delta` events and compared with the
`turn_done` text (no lost or foreign chunks), every chat's stored messages are checked to hold
only its own user texts (no cross-talk), errors are counted, and the process's resident memory
is sampled: "flat" means the last sample is within 10 % of the sample taken after warm-up.
Prints one Markdown table row. Linux (reads /proc/self/statm) for the memory part.

Run from the repo root: .venv/bin/python bench/bench_soak.py [--chats 20] [--seconds 600]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "sk-bench-soak-000000"
STEP = {"text": "streamed soak answer " * 12, "chunk_size": 6, "delay_s": 0.002}


def rss_mb() -> float:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return float("nan")
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


async def soak(chats: int, seconds: float) -> dict[str, Any]:
    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring
    from app.testing.fake_llm import FakeLLMServer

    with FakeLLMServer(valid_keys={KEY}) as server, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "ws").mkdir()
        paths = AppPaths(home / "data", home / "config", home / "logs", home / "cache")
        app = build_app(paths, {}, secrets=SecretStore(backend=MemoryKeyring()), workspace=home / "ws")
        pid = (
            await app.invoke(
                "providers.save",
                {
                    "name": "Soak",
                    "kind": "chat_completions",
                    "base_url": server.openai_base_url,
                    "api_key": KEY,
                    # The chats stream at once, as against a remote API: a loopback provider
                    # would otherwise make one call at a time (decision 307).
                    "parallel_requests": 0,
                },
            )
        )["data"]["id"]
        deltas: dict[str, list[str]] = defaultdict(list)
        ends: dict[str, asyncio.Future[Any]] = {}
        loop = asyncio.get_running_loop()

        def on_event(event: Any) -> None:
            turn = getattr(event, "turn_id", "")
            if event.type == "delta" and event.channel == "text":
                deltas[turn].append(event.text)
            elif event.type in ("turn_done", "turn_failed", "turn_cancelled"):
                ends.setdefault(turn, loop.create_future())
                if not ends[turn].done():
                    ends[turn].set_result(event)

        app.subscribe(on_event)
        stats = {"turns": 0, "errors": 0, "mismatched": 0}
        deadline = time.monotonic() + seconds
        samples: list[float] = []

        async def refill() -> None:
            while time.monotonic() < deadline:
                if server.pending_steps() < chats * 4:
                    server.script(*[STEP] * (chats * 8))
                await asyncio.sleep(0.05)

        async def sample() -> None:
            while time.monotonic() < deadline:
                samples.append(rss_mb())
                await asyncio.sleep(max(0.5, seconds / 40))

        async def one_chat(index: int) -> str:
            chat = (await app.invoke("chats.create", {}))["data"]["id"]
            round_no = 0
            while time.monotonic() < deadline:
                round_no += 1
                text = f"chat-{index} round-{round_no}"
                ref = await app.invoke(
                    "chat.send",
                    {"chat_id": chat, "text": text, "model": {"provider_id": pid, "model": "fake-model"}},
                )
                if not ref["ok"]:
                    stats["errors"] += 1
                    continue
                turn = ref["data"]["turn_id"]
                ends.setdefault(turn, loop.create_future())
                end = await asyncio.wait_for(ends[turn], 60)
                if end.type != "turn_done":
                    stats["errors"] += 1
                elif "".join(deltas.pop(turn, [])) != end.text:
                    stats["mismatched"] += 1
                stats["turns"] += 1
                ends.pop(turn, None)
            return chat

        server.script(*[STEP] * (chats * 8))
        helpers = [asyncio.ensure_future(refill()), asyncio.ensure_future(sample())]
        started = time.monotonic()
        chat_ids = await asyncio.gather(*(one_chat(i) for i in range(chats)))
        elapsed = time.monotonic() - started
        for task in helpers:
            task.cancel()
        cross_talk = await count_cross_talk(app, chat_ids)
        await app.aclose()
    warm = samples[min(2, len(samples) - 1)] if samples else float("nan")
    return {
        **stats,
        "cross_talk": cross_talk,
        "elapsed": elapsed,
        "rss_warm": warm,
        "rss_end": samples[-1] if samples else float("nan"),
    }


async def count_cross_talk(app: Any, chat_ids: list[str]) -> int:
    """User messages stored in a chat that another chat sent."""
    foreign = 0
    for index, chat in enumerate(chat_ids):
        detail = (await app.invoke("chats.get", {"chat_id": chat, "limit": 1000}))["data"]
        for message in detail["messages"]:
            if message["role"] == "user" and not message["content"].startswith(f"chat-{index} "):
                foreign += 1
    return foreign


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=600.0)
    args, _unknown = parser.parse_known_args()  # `build.py bench` passes its extra arguments to all
    result = asyncio.run(soak(args.chats, args.seconds))
    growth = (result["rss_end"] - result["rss_warm"]) / result["rss_warm"] * 100
    flat = "flat" if growth <= 10 else "GROWING"
    print("| chats | duration | turns | errors | mismatched streams | cross-talk | RSS warm → end |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {args.chats} | {result['elapsed']:.0f} s | {result['turns']} | {result['errors']} | "
        f"{result['mismatched']} | {result['cross_talk']} | "
        f"{result['rss_warm']:.0f} → {result['rss_end']:.0f} MB ({growth:+.1f} %, {flat}) |"
    )
    bad = result["errors"] or result["mismatched"] or result["cross_talk"] or growth > 10
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
