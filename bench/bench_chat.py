"""Chat power benchmarks (issue 11).

1. Search: full-text search over N messages (default 1,000,000) through the app's own store
   (`ChatRepository.search`, exactly what the `chats.search` route runs, plus building the
   highlighted snippet segments). The database is seeded through `ChatRepository.append_turn`
   (the path real turns take, FTS triggers included) in 1,000-message chats of 10-message
   turns, and kept in a cache folder so later runs reuse it (`--fresh` rebuilds). Queries mix
   rare and common English words, a phrase, and Chinese; each runs 3 times (first run cold).
   Reported: p50 / p95 / max over all query runs.
2. Attachment: the time a 10 MB PNG adds before a request starts, i.e. reading its base64
   text from the content-addressed store (written once at upload), building the body of each
   provider kind (Chat Completions, Responses, Ollama /api/chat) and serialising it to the JSON
   bytes that are sent (app/llm/json_body.py), minus the same request without the image.
   Median of 21 paired runs. For reference, in the same run: the previous string path (base64
   encoding, a data-URL string, the SDK's JSON encoder), and a floor: reading the image's
   bytes once (what any way of sending it must do), so a loaded machine can still be judged
   by the ratio.

Budgets (issue 11): search p95 <= 100 ms; attachment <= 50 ms.

    .venv/bin/python bench/bench_chat.py [--messages N] [--fresh] [--only search|attachment]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.api.plugins import open_database  # noqa: E402
from app.attachments.inputs import AttachmentResolver  # noqa: E402
from app.attachments.store import AttachmentStore  # noqa: E402
from app.contracts.messages import AttachmentRef, Message  # noqa: E402
from app.contracts.provider import ModelRequest  # noqa: E402
from app.history.highlight import segments  # noqa: E402
from app.llm.json_body import encode_json  # noqa: E402
from app.llm.wire_chat import chat_request  # noqa: E402
from app.llm.wire_ollama import native_request  # noqa: E402
from app.llm.wire_responses import responses_request  # noqa: E402
from app.store.chats import ChatRepository  # noqa: E402

CACHE = ROOT / ".bench-cache"
PER_CHAT = 1000
PER_TURN = 10
WORDS = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "as",
    "this",
    "was",
    "be",
    "at",
    "by",
    "from",
    "or",
    "an",
    "are",
    "not",
    "have",
    "file",
    "code",
    "function",
    "error",
    "test",
    "build",
    "deploy",
    "server",
    "client",
    "request",
    "response",
    "cache",
    "index",
    "query",
    "python",
    "rust",
    "vue",
    "sqlite",
    "window",
    "model",
    "provider",
    "token",
    "stream",
    "tool",
    "result",
    "workspace",
    "folder",
    "config",
]
CJK = [
    "今天",
    "天气",
    "很好",
    "我们",
    "需要",
    "修改",
    "这个",
    "文件",
    "的",
    "代码",
    "然后",
    "运行",
    "测试",
    "看看",
    "结果",
    "是否",
    "正确",
]
RARE = ["quarterly", "zeppelin", "marmalade", "kaleidoscope"]
QUERIES = [
    "quarterly",
    "zeppelin report",
    "marmalade",
    "kaleidoscope",
    "sqlite index",
    "provider token",
    "deploy server",
    "workspace folder",
    "天气很好",
    "运行测试",
    "修改这个文件",
    "python",
    "error",
]


def _text(rng: random.Random, n: int) -> str:
    if n % 5 == 0:
        return "".join(rng.choice(CJK) for _ in range(rng.randint(8, 30)))
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 40))]
    if rng.random() < 0.002:
        words.insert(rng.randrange(len(words)), rng.choice(RARE))
    return " ".join(words)


def seed(path: Path, total: int) -> None:
    rng = random.Random(11)
    with open_database(path) as db:
        repo = ChatRepository(db)
        made = 0
        started = time.perf_counter()
        while made < total:
            chat = repo.create(f"Bench chat {made // PER_CHAT}")
            for t in range(min(PER_CHAT, total - made) // PER_TURN):
                batch = [
                    Message(role="user" if i % 2 == 0 else "assistant", content=_text(rng, made + i))
                    for i in range(PER_TURN)
                ]
                repo.append_turn(chat.id, f"turn-{t}", batch)
                made += PER_TURN
            if made % 100_000 == 0:
                print(f"  seeded {made:,} messages in {time.perf_counter() - started:.0f} s", flush=True)


def bench_search(total: int, fresh: bool) -> dict[str, float]:
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"chat-search-{total}.sqlite3"
    if fresh or not path.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        print(f"seeding {total:,} messages through ChatRepository.append_turn …", flush=True)
        t0 = time.perf_counter()
        seed(path, total)
        print(f"seeded in {time.perf_counter() - t0:.0f} s", flush=True)
    times: list[float] = []
    hits: dict[str, int] = {}
    with open_database(path) as db:
        repo = ChatRepository(db)
        for query in QUERIES:
            for _ in range(3):
                t0 = time.perf_counter()
                found = repo.search(query, limit=30)
                for h in found:
                    segments(h.snippet, query.split())
                times.append((time.perf_counter() - t0) * 1000)
            hits[query] = len(found)
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print("hits per query:", hits)
    return {"p50_ms": statistics.median(times), "p95_ms": p95, "max_ms": times[-1]}


class _SdkEncoder(json.JSONEncoder):
    """The OpenAI SDK serialises bodies with its own JSONEncoder subclass (openapi_dumps)."""


def _string_path(store: AttachmentStore, ref: AttachmentRef) -> bytes:
    """The previous way, for reference in the same run: base64 as `str`, a data-URL string,
    and the SDK's JSON encoding of the whole body."""
    data = base64.b64encode(store.read(ref.sha256)).decode("ascii")
    url = f"data:{ref.mime};base64,{data}"
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}],
    }
    return json.dumps(
        body, cls=_SdkEncoder, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode()


def bench_attachment(runs: int = 21) -> dict[str, dict[str, float]]:
    """Per provider kind: the time a 10 MB image adds to building the request bytes (store read,
    wire body, JSON), median and max of paired runs (with image minus without)."""
    wires = {"chat_completions": chat_request, "responses": responses_request, "ollama": native_request}
    with tempfile.TemporaryDirectory() as tmp:
        store = AttachmentStore(Path(tmp))
        data = b"\x89PNG\r\n\x1a\n" + random.Random(1).randbytes(10 * 1024 * 1024)
        digest = store.put(data)
        store.save_b64(digest)  # what `attachments.upload` does for an image
        ref = AttachmentRef(sha256=digest, name="big.png", mime="image/png", size=len(data), kind="image")
        resolver = AttachmentResolver(store)
        plain = (Message(role="user", content="Describe this image"),)
        with_image = (Message(role="user", content="Describe this image", attachments=(ref,)),)
        out: dict[str, dict[str, float]] = {}
        for kind, wire in wires.items():

            def prepare(messages: tuple[Message, ...], wire: Any = wire) -> float:
                t0 = time.perf_counter()
                inputs = resolver.for_messages(messages) if any(m.attachments for m in messages) else {}
                encode_json(wire(ModelRequest(model="m", messages=messages, attachment_inputs=inputs)))
                return (time.perf_counter() - t0) * 1000

            prepare(with_image)  # warm the page cache like a just-uploaded file
            diffs = [prepare(with_image) - prepare(plain) for _ in range(runs)]
            out[kind] = {"median": statistics.median(diffs), "max": max(diffs), "min": min(diffs)}
        before = []
        for _ in range(runs):
            t0 = time.perf_counter()
            _string_path(store, ref)
            before.append((time.perf_counter() - t0) * 1000)
        out["string path (before)"] = {
            "median": statistics.median(before),
            "max": max(before),
            "min": min(before),
        }
        floor = []
        for _ in range(runs):  # what any way of sending the image must do: read its bytes once
            t0 = time.perf_counter()
            store.read(ref.sha256)
            floor.append((time.perf_counter() - t0) * 1000)
        out["floor: reading the 10 MB file"] = {
            "median": statistics.median(floor),
            "max": max(floor),
            "min": min(floor),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--fresh", action="store_true", help="rebuild the seeded database")
    parser.add_argument("--only", choices=["search", "attachment"])
    args = parser.parse_args()
    if args.only in (None, "attachment"):
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for kind, r in bench_attachment().items():
            print(
                f"10 MB image before the request, {kind}: +{r['median']:.1f} ms median"
                f" (min {r['min']:.1f}, max {r['max']:.1f}); budget 50 ms"
            )
    if args.only in (None, "search"):
        s = bench_search(args.messages, args.fresh)
        print(
            f"search over {args.messages:,} messages: p50 {s['p50_ms']:.1f} ms, p95 {s['p95_ms']:.1f} ms,"
            f" max {s['max_ms']:.1f} ms; budget p95 100 ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
