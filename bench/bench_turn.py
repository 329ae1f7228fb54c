"""Per-turn app overhead (SPEC S14: ≤ 5 ms beyond the model's own time).

Runs a text turn and a one-tool turn (read_file, then the answer) through the real
`CashCodeApp` (chat.send → loop → provider → store → turn_done) against a zero-delay fake LLM
server in its own process, and the *same* HTTP requests with the bare OpenAI SDK. Overhead =
median(app turn) − median(bare requests). Prints Markdown table rows.

Run from the repo root: .venv/bin/python bench/bench_turn.py [--runs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "sk-bench-key-000000"
TEXT_STEP = {
    "text": "Hello from the fake LLM, twenty-ish tokens of text for a short answer.",
    "chunk_size": 4,
}
TOOL_STEP = {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.testing.fake_llm", "--port", "0", "--print-port", "--valid-key", KEY],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, f"http://127.0.0.1:{int(line.strip().split('=')[1])}"


def script(root: str, *steps: dict[str, Any]) -> None:
    request = urllib.request.Request(
        root + "/_control/script", data=json.dumps({"steps": list(steps)}).encode(), method="POST"
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request) as resp:
        resp.read()


async def measure(
    runs: int,
    prepare: Callable[[], Awaitable[None]],
    body: Callable[[], Awaitable[None]],
    warmup: int = 5,
    cpu: list[float] | None = None,
) -> list[float]:
    """Wall time (ms) of `body` per run; with `cpu`, also this process's CPU time (ms) per run."""
    times = []
    for i in range(runs + warmup):
        await prepare()
        started, cpu_started = time.perf_counter(), time.process_time()
        await body()
        if i >= warmup:  # warm-up runs are not counted
            times.append((time.perf_counter() - started) * 1000)
            if cpu is not None:
                cpu.append((time.process_time() - cpu_started) * 1000)
    return times


def recorded_bodies(root: str, count: int) -> list[dict[str, Any]]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(root + "/_control/requests") as resp:
        requests = json.loads(resp.read())["requests"]
    model_calls = [r["body"] for r in requests if r["path"] == "/v1/chat/completions"]
    return model_calls[-count:]


async def replay(client: Any, bodies: list[dict[str, Any]]) -> None:
    """The same requests the app made, sent with the bare SDK, streams fully consumed."""
    for body in bodies:
        stream = await client.chat.completions.create(**body)
        async for _ in stream:
            pass


async def main(runs: int) -> None:
    from openai import AsyncOpenAI

    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring

    proc, root = start_server()
    tmp = Path(tempfile.mkdtemp(prefix="cashcode-bench-"))
    (tmp / "ws").mkdir()
    (tmp / "ws" / "notes.txt").write_text("bench notes\n" * 20)
    paths = AppPaths(tmp / "data", tmp / "config", tmp / "logs", tmp / "cache")
    app = build_app(paths, {}, secrets=SecretStore(backend=MemoryKeyring()), workspace=tmp / "ws")
    try:
        saved = await app.invoke(
            "providers.save",
            {"name": "bench", "kind": "chat_completions", "base_url": root + "/v1", "api_key": KEY},
        )
        model = {"provider_id": saved["data"]["id"], "model": "fake-model"}
        done = asyncio.Event()
        app.subscribe(lambda e: done.set() if e.type in ("turn_done", "turn_failed") else None)
        client = AsyncOpenAI(base_url=root + "/v1", api_key=KEY, max_retries=0)
        rows = []
        for name, steps in (
            ("text turn", [TEXT_STEP]),
            ("one-tool turn (read_file)", [TOOL_STEP, TEXT_STEP]),
        ):
            chat_ids: list[str] = []

            async def prepare_app(
                steps: list[dict[str, Any]] = steps, chat_ids: list[str] = chat_ids
            ) -> None:
                # A fresh chat per run: every run sends the same history.
                chat_ids.append((await app.invoke("chats.create", {}))["data"]["id"])
                script(root, *steps)

            async def app_turn(chat_ids: list[str] = chat_ids) -> None:
                done.clear()
                ref = await app.invoke("chat.send", {"chat_id": chat_ids[-1], "text": "hi", "model": model})
                assert ref["ok"], ref
                await done.wait()

            await prepare_app()
            await app_turn()  # warm-up, and the requests to replay
            bodies = recorded_bodies(root, len(steps))

            async def bare_turn(bodies: list[dict[str, Any]] = bodies) -> None:
                await replay(client, bodies)

            async def prepare_bare(steps: list[dict[str, Any]] = steps) -> None:
                script(root, *steps)

            # Interleaved (app, bare, app, bare, …) so drift and noise hit both alike.
            full, bare, full_cpu, bare_cpu = [], [], [], []  # type: ignore[var-annotated]
            for _ in range(runs):
                full += await measure(1, prepare_app, app_turn, warmup=0, cpu=full_cpu)
                bare += await measure(1, prepare_bare, bare_turn, warmup=0, cpu=bare_cpu)
            mb, mf = statistics.median(bare), statistics.median(full)
            paired = statistics.median(f - b for f, b in zip(full, bare, strict=True))
            cpu_over = statistics.median(full_cpu) - statistics.median(bare_cpu)
            rows.append((name, mb, mf, mf - mb, paired, cpu_over))
        print(f"runs per row: {runs}")
        print(
            "| turn | bare SDK requests (median ms) | CashCode turn (median ms) "
            "| overhead: diff of medians (ms) | overhead: median of paired diffs (ms) | extra CPU (ms) |"
        )
        print("|---|---|---|---|---|---|")
        for name, mb, mf, over, paired, cpu_over in rows:
            print(f"| {name} | {mb:.2f} | {mf:.2f} | {over:.2f} | {paired:.2f} | {cpu_over:.2f} |")
        await client.close()
    finally:
        await app.aclose()
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    asyncio.run(main(parser.parse_args().runs))
