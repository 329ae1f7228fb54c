"""Branch and history-loading budgets (issues 11, 9, 16).

- open: a chat with 1,000 branches' worth of messages (each answer regenerated once and the
  conversation continued from the new answer, so the active path crosses 1,000 branches and
  every answer on it has a sibling; 4,000 messages, written through `append_turn`).
  `chats.get` (newest page of the active path with the ‹ n/m › sibling data), p50/p95.
- turn: time from `chat.send` to the model request arriving at a minimal in-process
  Chat Completions server, in a 100,000-message chat with 200 summaries, in a 100,000-message
  chat without any summary (read backwards within the context budget), and in a 10-message
  chat, interleaved run by run. Consolidation is answered with an empty summary (nothing
  changes) and awaited between runs, outside the measured window.
- migrate: a database one schema version older with 1,000,000 messages in 10,000 chats
  (seeded with direct inserts, the FTS trigger off while seeding), then the time to open it
  with the branch and counter migrations.

Run from the repo root: .venv/bin/python bench/bench_branches.py [--runs 30] [--only open|turn|migrate]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_memory import make_app, seed_chat  # noqa: E402

from app.api.plugins import open_database  # noqa: E402

BRANCHES = 1_000
KEY = "sk-bench-branches-0000"


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def row(metric: str, values: list[float], budget: str) -> str:
    return f"| {metric} | p50 {statistics.median(values):.1f} / p95 {p95(values):.1f} ms | {budget} |"


# ---- open ---------------------------------------------------------------------------------------


def seed_branchy(app: Any) -> str:
    from app.contracts.messages import Message

    chats = app.ctx.chats
    chat = chats.create("branchy").id
    for i in range(BRANCHES):
        q, a = chats.append_turn(
            chat,
            f"t{i}",
            [
                Message(role="user", content=f"question {i} " + "q" * 30),
                Message(role="assistant", content="a" * 40),
            ],
        )
        chats.append_turn(
            chat, f"r{i}", [Message(role="assistant", content=f"again {i} " + "b" * 30)], parent=q.cursor
        )
    return str(chat)


async def bench_open(app: Any, runs: int) -> list[str]:
    chat = seed_branchy(app)
    floor_chat = seed_plain(app, 200)  # the same page from a 200-message chat without branches

    async def body() -> None:
        reply = await app.invoke("chats.get", {"chat_id": chat})
        assert reply["ok"] and len(reply["data"]["messages"]) == 200
        assert len(reply["data"]["messages"][-1]["siblings"]) == 2

    async def floor() -> None:
        reply = await app.invoke("chats.get", {"chat_id": floor_chat})
        assert reply["ok"] and len(reply["data"]["messages"]) == 200

    times: list[float] = []
    floors: list[float] = []
    for _ in range(runs):  # interleaved, so load changes hit both alike
        times += await timed(body, 1, warmup=1)
        floors += await timed(floor, 1, warmup=1)
    ratio = statistics.median(times) / statistics.median(floors)
    metric = f"open a chat with {BRANCHES:,} branches (`chats.get`, newest 200 of the active path)"
    return [
        row(metric, times, "≤ 100 ms"),
        row(f"floor: open a 200-message chat without branches (same page; ratio {ratio:.2f})", floors, "—"),
    ]


async def timed(body: Any, runs: int, warmup: int = 3) -> list[float]:
    out = []
    for i in range(runs + warmup):
        started = time.perf_counter()
        await body()
        if i >= warmup:
            out.append((time.perf_counter() - started) * 1000)
    return out


# ---- turn ---------------------------------------------------------------------------------------


class TinyModelServer:
    """Chat Completions over real HTTP on the bench's own loop: records when each request has
    fully arrived, answers with a short stream (or an empty summary for consolidation)."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}/v1"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                length = next(
                    (int(x.split(":", 1)[1]) for x in lines if x.lower().startswith("content-length:")), 0
                )
                body = await reader.readexactly(length) if length else b""
                if lines[0].startswith("GET /v1/models"):
                    self._reply(
                        writer,
                        "application/json",
                        json.dumps({"data": [{"id": "bench-model", "object": "model"}]}),
                    )
                    continue
                self.arrivals.append(time.perf_counter())
                request = json.loads(body or b"{}")
                text = "" if not request.get("tools") else "ok"  # consolidation asks without tools
                self._reply(writer, "text/event-stream", _sse(text))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionResetError):
            writer.close()

    @staticmethod
    def _reply(writer: asyncio.StreamWriter, kind: str, payload: str) -> None:
        data = payload.encode()
        writer.write(
            f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data
        )

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


def _sse(text: str) -> str:
    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "bench-model"}
    parts = [
        {
            **chunk,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}],
        },
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return "".join(f"data: {json.dumps(p)}\n\n" for p in parts) + "data: [DONE]\n\n"


def seed_plain(app: Any, messages: int) -> str:
    """A chat of `messages` rows without summaries (direct inserts, like bench_memory)."""
    chat = app.ctx.chats.create("plain").id
    rows = [
        (
            chat,
            c,
            f"t{(c - 1) // 2}",
            ("user", "assistant")[(c - 1) % 2],
            f"message {c} " + "x" * 30,
            "2026-12-01",
        )
        for c in range(1, messages + 1)
    ]
    with app.ctx.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO messages (chat_id, cursor, turn_id, role, content, created_at) VALUES (?,?,?,?,?,?)",
            rows,
        )
    return str(chat)


async def bench_turn(app: Any, runs: int) -> list[str]:
    from app.contracts.events import TurnDone
    from app.memory.capability import MemoryCapability

    server = TinyModelServer()
    base = await server.start()
    saved = await app.invoke(
        "providers.save", {"name": "b", "kind": "chat_completions", "base_url": base, "api_key": KEY}
    )
    model = {"provider_id": saved["data"]["id"], "model": "bench-model"}
    cap = next(c for c in app.capabilities if isinstance(c, MemoryCapability))
    chats = {
        "100,000 messages + 200 summaries": seed_chat(app),
        "100,000 messages, no summary": seed_plain(app, 100_000),
    }
    chats["10 messages"] = seed_plain(app, 10)
    done: dict[str, asyncio.Event] = {}
    app.subscribe(lambda e: done[e.turn_id].set() if isinstance(e, TurnDone) and e.turn_id in done else None)
    times: dict[str, list[float]] = {name: [] for name in chats}
    try:
        for i in range(runs + 2):
            for name, chat in chats.items():
                before = len(server.arrivals)
                started = time.perf_counter()
                ref = await app.invoke("chat.send", {"chat_id": chat, "text": f"turn {i}", "model": model})
                done[ref["data"]["turn_id"]] = asyncio.Event()
                await asyncio.wait_for(done[ref["data"]["turn_id"]].wait(), 60)
                if i >= 2:
                    times[name].append((server.arrivals[before] - started) * 1000)
                await cap.wait_background()
    finally:
        await server.close()
    base_p50 = statistics.median(times["10 messages"])
    out = []
    for name, values in times.items():
        extra = "" if name == "10 messages" else f" (+{statistics.median(values) - base_p50:.1f} ms vs 10)"
        out.append(row(f"turn in a chat of {name}: `chat.send` → model request{extra}", values, "—"))
    return out


# ---- migrate ------------------------------------------------------------------------------------


def bench_migrate() -> list[str]:
    from app.store.db import Database
    from app.store.migrations import MIGRATIONS

    names = [getattr(m, "__name__", "") for m in MIGRATIONS]
    older = MIGRATIONS[: names.index("_branches")]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "old.sqlite3"
        with Database(path, migrations=older) as db, db.transaction() as conn:
            conn.execute("DROP TRIGGER IF EXISTS messages_fts_insert")  # seeding speed only
            chat_ids = [f"{i:08x}-0000-4000-8000-000000000000" for i in range(10_000)]
            conn.executemany(
                "INSERT INTO chats (id, title, title_auto, created_at, updated_at)"
                " VALUES (?, 't', 1, 'x', 'x')",
                [(c,) for c in chat_ids],
            )
            conn.executemany(
                "INSERT INTO messages (chat_id, cursor, turn_id, role, content, created_at)"
                " VALUES (?,?,?,?,?,?)",
                (
                    (
                        chat_ids[i % 10_000],
                        i // 10_000 + 1,
                        f"t{i // 20_000}",
                        ("user", "assistant")[(i // 10_000) % 2],
                        "a message of ordinary length " * 3,
                        "2026-12-01",
                    )
                    for i in range(1_000_000)
                ),
            )
        started = time.perf_counter()
        with open_database(path):
            pass
        took = (time.perf_counter() - started) * 1000
    metric = "migrate 1,000,000 messages in 10,000 chats (branches + counters)"
    return [f"| {metric} | {took:.0f} ms | a few seconds |"]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--only", choices=["open", "turn", "migrate"])
    args = parser.parse_args()
    print("| metric | measured | budget |\n|---|---|---|")
    for name, bench in (("open", bench_open), ("turn", bench_turn)):
        if args.only not in (None, name):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            app = make_app(Path(tmp))
            try:
                for line in await bench(app, args.runs if name == "open" else max(5, args.runs // 3)):
                    print(line, flush=True)
            finally:
                await app.aclose()
    if args.only in (None, "migrate"):
        for line in bench_migrate():
            print(line, flush=True)


if __name__ == "__main__":
    asyncio.run(main())
