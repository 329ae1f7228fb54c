"""CLI start-up budget (SPEC S14): `cashcode ask` ≤ 1.1x a bare OpenAI-SDK script making the
same streamed request.

Both run as fresh processes against the fake LLM server (its own process, TCP_NODELAY on; see
bench_turn.py). The bare script replays exactly the request body `cashcode ask` sent (system
prompt, tools, history), streams it and prints the text. Wall time and CPU time (user + system)
per process; median of `--runs` each, interleaved. Both API modes by default. Prints Markdown
table rows and the load average before and after.

Byte code: an installed app has its modules compiled (installers byte-compile them, as they did
for the OpenAI SDK). So both commands run with their own byte-code cache folder
(PYTHONPYCACHEPREFIX, filled by the warm-up runs) and without PYTHONDONTWRITEBYTECODE;
otherwise every `cashcode ask` would recompile ~170 modules that the SDK script never has to.

`--before DIR`: also runs `cashcode ask` from another copy of the `app` package (e.g.
`git archive <commit> app | tar -x -C DIR`), interleaved in the same runs, so a change is
compared with the code before it under the same load (on a loaded machine the only fair way).

Run from the repo root:
  .venv/bin/python bench/bench_ask.py [--runs 9] [--api-mode both|chat_completions|responses]
      [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_turn import KEY, start_server  # noqa: E402

BARE_CHAT = """
import json, sys
from openai import OpenAI
body = json.loads(sys.argv[2])
client = OpenAI(base_url=sys.argv[1], api_key=sys.argv[3], max_retries=0)
for chunk in client.chat.completions.create(**body):
    if chunk.choices and chunk.choices[0].delta.content:
        sys.stdout.write(chunk.choices[0].delta.content)
        sys.stdout.flush()
print()
"""

BARE_CHAT_ASYNC = """
import asyncio, json, sys
from openai import AsyncOpenAI
async def main():
    body = json.loads(sys.argv[2])
    client = AsyncOpenAI(base_url=sys.argv[1], api_key=sys.argv[3], max_retries=0)
    async for chunk in await client.chat.completions.create(**body):
        if chunk.choices and chunk.choices[0].delta.content:
            sys.stdout.write(chunk.choices[0].delta.content)
            sys.stdout.flush()
    print()
asyncio.run(main())
"""

BARE_RESPONSES = """
import json, sys
from openai import OpenAI
body = json.loads(sys.argv[2])
client = OpenAI(base_url=sys.argv[1], api_key=sys.argv[3], max_retries=0)
for event in client.responses.create(**body):
    if event.type == "response.output_text.delta":
        sys.stdout.write(event.delta)
        sys.stdout.flush()
print()
"""


def last_body(root: str, path: str) -> dict[str, object]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(root + "/_control/requests") as resp:
        requests = json.loads(resp.read())["requests"]
    body: dict[str, object] = [r["body"] for r in requests if r["path"] == path][-1]
    return body


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(
    cmd: list[str], env: dict[str, str], cwd: Path, cpu: list[float] | None = None
) -> tuple[float, str]:
    cpu_before = _child_cpu()
    started = time.perf_counter()
    result = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if cpu is not None:
        cpu.append(_child_cpu() - cpu_before)
    if result.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed: {result.stderr}")
    return elapsed, result.stdout


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(runs: int, api_mode: str, before: Path | None = None) -> None:
    proc, root = start_server()
    home = Path(tempfile.mkdtemp(prefix="cashcode-bench-ask-"))
    (home / "ws").mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "CASHCODE_", "PYTHON_KEYRING", "PYTHONDONTWRITEBYTECODE"))
    }
    env.update(
        PYTHONPYCACHEPREFIX=str(home / "pycache"),
        CASHCODE_DATA_DIR=str(home / "data"),
        CASHCODE_CONFIG_DIR=str(home / "config"),
        CASHCODE_LOG_DIR=str(home / "logs"),
        CASHCODE_CACHE_DIR=str(home / "cache"),
        OPENAI_BASE_URL=root + "/v1",
        OPENAI_API_KEY=KEY,
        CASHCODE_MODEL="fake-model",
        CASHCODE_API_MODE=api_mode,
        NO_PROXY="*",
    )
    cashcode = [str(Path(sys.executable).parent / "cashcode"), "ask", "hi"]
    started_load = load()
    try:
        _, answer = timed(cashcode, env, home / "ws")  # also creates the database and byte code once
        path = "/v1/responses" if api_mode == "responses" else "/v1/chat/completions"
        body = json.dumps(last_body(root, path))
        bare = [
            sys.executable,
            "-c",
            BARE_RESPONSES if api_mode == "responses" else BARE_CHAT,
            root + "/v1",
            body,
            KEY,
        ]
        _, bare_answer = timed(bare, env, home / "ws")
        assert answer == bare_answer, (answer, bare_answer)
        # The app's core is async; this shows how much of the gap is just the async SDK client.
        bare_async = [sys.executable, "-c", BARE_CHAT_ASYNC, root + "/v1", body, KEY]
        if api_mode == "chat_completions":
            timed(bare_async, env, home / "ws")
        # The other copy wins over the installed (editable) package: the cwd is not the repo.
        before_env = {**env, "PYTHONPATH": str(before)} if before is not None else None
        if before_env is not None:
            assert timed(cashcode, before_env, home / "ws")[1] == answer
        app_times, bare_times, async_times, before_times = [], [], [], []
        app_cpu: list[float] = []
        bare_cpu: list[float] = []
        before_cpu: list[float] = []
        for _ in range(runs):  # interleaved so machine noise hits all alike
            app_times.append(timed(cashcode, env, home / "ws", app_cpu)[0])
            bare_times.append(timed(bare, env, home / "ws", bare_cpu)[0])
            if api_mode == "chat_completions":
                async_times.append(timed(bare_async, env, home / "ws")[0])
            if before_env is not None:
                before_times.append(timed(cashcode, before_env, home / "ws", before_cpu)[0])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    ma, mb = statistics.median(app_times), statistics.median(bare_times)
    fa, fb = min(app_times), min(bare_times)  # the least disturbed runs, for a loaded machine
    ca, cb = statistics.median(app_cpu), statistics.median(bare_cpu)
    print(f"runs: {runs} each, api mode {api_mode}; {started_load} at the start, {load()} at the end")
    print(
        "| command | bare SDK script (median s) | `cashcode ask` (median s) | ratio of medians (≤ 1.10) "
        "| ratio of fastest runs | CPU time ratio (medians) |"
    )
    print("|---|---|---|---|---|---|")
    print(
        f"| ask ({api_mode}) | {mb:.3f} | {ma:.3f} | {ma / mb:.2f} | {fa / fb:.2f} ({fa:.3f} / {fb:.3f}) "
        f"| {ca / cb:.2f} ({ca:.3f} / {cb:.3f}) |"
    )
    if async_times:
        mc = statistics.median(async_times)
        print(
            f"(for reference: the same script with AsyncOpenAI: median {mc:.3f} s; ask / async {ma / mc:.2f})"
        )
    if before_times:
        mo, co = statistics.median(before_times), statistics.median(before_cpu)
        print(
            f"(same runs, `ask` from {before}: median {mo:.3f} s, ratio to the floor {mo / mb:.2f}, "
            f"CPU ratio {co / cb:.2f}; now / before: wall {ma / mo:.2f}, CPU {ca / co:.2f})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--api-mode", choices=["both", "chat_completions", "responses"], default="both")
    parser.add_argument("--before", type=Path, help="a copy of the app package to compare with, same runs")
    args = parser.parse_args()
    if args.before is not None and not (args.before / "app" / "__init__.py").is_file():
        raise SystemExit(f"--before {args.before}: no app/__init__.py there")
    before = args.before.resolve() if args.before is not None else None
    for mode in ["chat_completions", "responses"] if args.api_mode == "both" else [args.api_mode]:
        main(args.runs, mode, before)
