"""MCP benchmarks (issue 8).

1. `tool_search` over 10,000 tools from 200 servers: `app/mcp/tools.py McpDirectory.refresh()`
   builds the provider-safe names and its first `.index` access (timed together here; the first
   search in the app) the BM25 index (tool name, description, parameter names,
   server and display name) from a stand-in catalog; we time the build, then 500 queries drawn
   from the tools' own vocabulary plus unknown words, and report p50/p95 per query. Wall time
   and CPU time (`time.process_time`) are both printed: on a shared, loaded machine the wall
   time includes waiting for a core, the CPU time is what the work itself costs.
2. stdio connect -> tools listed: `McpService.connect` on the built-in stdio server (child
   guard, legacy handshake, schema cache write) vs a bare MCP-SDK script doing
   `async with Client(StdioServerParameters(...)) as c: await c.list_tools()` on the same
   server. Fresh server process each run, interleaved, median of `--runs`.

Run: `.venv/bin/python bench/bench_mcp.py [--runs 7] [--only search|connect]`
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


COMMON = [
    "read",
    "write",
    "list",
    "search",
    "create",
    "delete",
    "update",
    "file",
    "folder",
    "issue",
    "pull",
    "request",
    "commit",
    "branch",
    "repo",
    "weather",
    "forecast",
    "city",
    "time",
    "zone",
    "convert",
    "currency",
    "stock",
    "price",
    "email",
    "send",
    "inbox",
    "calendar",
    "event",
    "翻译",
    "文件",
    "搜索",
    "天气",
    "日历",
    "database",
    "query",
    "table",
    "row",
    "column",
    "user",
    "account",
    "token",
    "image",
    "resize",
]


def vocabulary(rng: random.Random, size: int = 4_000) -> list[str]:
    """Common tool words first, then made-up domain words; drawn Zipf-like (a few words are very
    frequent, most are rare), as in real tool catalogs."""
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "zu", "dex", "ion", "or", "ul"]
    made = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(size)}
    return COMMON + sorted(made)


def ranked_words() -> list[str]:
    """The vocabulary in frequency-rank order (common tool words stay near the top)."""
    rng = random.Random(3)
    words = vocabulary(rng)
    head, tail = words[: len(COMMON)], words[len(COMMON) :]
    rng.shuffle(tail)
    mixed = head + tail
    rng.shuffle(mixed[:200])
    return mixed


_CUM: list[float] = []


def zipf_word(rng: random.Random, words: list[str]) -> str:
    """Zipf's law: the word of rank r is drawn with weight 1/r."""
    if len(_CUM) != len(words):
        _CUM[:] = list(itertools.accumulate(1 / (r + 1) for r in range(len(words))))
    return rng.choices(words, cum_weights=_CUM, k=1)[0]


def synthetic_tools(
    servers: int = 200, per_server: int = 50, seed: int = 7
) -> list[tuple[str, str, str, list[str]]]:
    rng = random.Random(seed)
    words = ranked_words()
    out = []
    for s in range(servers):
        server = f"server_{s}_{words[s]}"
        for t in range(per_server):
            verb, noun = zipf_word(rng, words), zipf_word(rng, words)
            name = f"{verb}_{noun}_{t}"
            desc = " ".join(zipf_word(rng, words) for _ in range(rng.randint(8, 24)))
            params = [f"{zipf_word(rng, words)}_{zipf_word(rng, words)}" for _ in range(rng.randint(0, 5))]
            out.append((server, name, desc, params))
    return out


def queries(n: int = 500, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    words = ranked_words()
    out = [" ".join(zipf_word(rng, words) for _ in range(rng.randint(1, 4))) for _ in range(n - 50)]
    return out + [f"nonexistent{i} words" for i in range(50)]


class _Catalog:
    """Stands in for McpService (entries, tools, revision): McpDirectory.refresh() then builds
    the names and the index exactly as in the app."""

    def __init__(self, tools: list[tuple[str, str, str, list[str]]]) -> None:
        from app.mcp.config import ServerEntry
        from app.mcp.connection import ToolDef

        self.revision = 1
        self._tools: dict[str, list[ToolDef]] = {}
        for server, name, desc, params in tools:
            schema = {"type": "object", "properties": {p: {"type": "string"} for p in params}}
            self._tools.setdefault(server, []).append(ToolDef(name, desc, schema))
        self._entries = [
            ServerEntry(
                name=s, transport="http", source="user", display_name=s.replace("_", " "), url=f"http://x/{s}"
            )
            for s in self._tools
        ]

    def entries(self) -> list[Any]:
        return self._entries

    def tools(self, name: str) -> list[Any]:
        return self._tools[name]


def bench_search() -> dict[str, float]:
    from app.mcp.tools import McpDirectory

    catalog = _Catalog(synthetic_tools())
    directory = McpDirectory(catalog)  # type: ignore[arg-type]
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    index = directory.refresh().index
    build_s, build_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    wall, cpu = [], []
    for q in queries():
        start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
        index.search(q, 8)
        cpu.append((time.process_time_ns() - start_cpu) / 1e6)
        wall.append((time.perf_counter_ns() - start) / 1e6)
    wall.sort()
    cpu.sort()
    return {
        "tools": len(directory.tools),
        "build_s": build_s,
        "build_cpu_s": build_cpu_s,
        "p50_ms": wall[len(wall) // 2],
        "p95_ms": wall[int(len(wall) * 0.95)],
        "cpu_p50_ms": cpu[len(cpu) // 2],
        "cpu_p95_ms": cpu[int(len(cpu) * 0.95)],
    }


SERVER = ROOT / "resources" / "mcp_servers" / "test_stdio_mcp" / "server.py"


async def bare_sdk() -> float:
    from mcp import Client, StdioServerParameters

    t0 = time.perf_counter()
    async with Client(StdioServerParameters(command=sys.executable, args=[str(SERVER)])) as client:
        await client.list_tools()
        elapsed = time.perf_counter() - t0
    return elapsed


async def app_mcp() -> float:
    from app.mcp.catalog import UserCatalog, builtin_dir
    from app.mcp.service import McpPaths, McpService
    from app.settings.secrets import SecretStore

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        service = McpService(
            McpPaths(
                builtin=builtin_dir(), catalog=base / "s.json", cache=base / "cache", logs=base / "logs"
            ),
            UserCatalog(base / "s.json", SecretStore()),
            lambda event: None,
        )
        t0 = time.perf_counter()
        conn = await service.connect("test_stdio_mcp")
        elapsed = time.perf_counter() - t0
        assert conn.tools
        await service.aclose()
    return elapsed


async def bench_connect(runs: int) -> dict[str, float]:
    await bare_sdk()  # warm the page cache for both
    bare, ours = [], []
    for _ in range(runs):
        bare.append(await bare_sdk())
        ours.append(await app_mcp())
    b, o = statistics.median(bare), statistics.median(ours)
    return {"bare_s": b, "app_s": o, "ratio": o / b}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", choices=["search", "connect"])
    args = parser.parse_args()
    if args.only in (None, "search"):
        r = bench_search()
        print(
            f"tool_search: {r['tools']} tools, index build {r['build_s']:.3f} s "
            f"(CPU {r['build_cpu_s']:.3f} s), "
            f"query p50 {r['p50_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms "
            f"(CPU p50 {r['cpu_p50_ms']:.2f} ms, p95 {r['cpu_p95_ms']:.2f} ms)"
        )
    if args.only in (None, "connect"):
        c = asyncio.run(bench_connect(args.runs))
        print(
            f"stdio connect->tools: app/mcp {c['app_s']:.3f} s, bare SDK {c['bare_s']:.3f} s, "
            f"ratio {c['ratio']:.2f}x"
        )


if __name__ == "__main__":
    main()
