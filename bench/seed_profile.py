"""A year-of-use profile: 10,000 chats and ~1,100,000 messages (one chat of 100,000), seeded
through the app's own store (`ChatRepository.create` / `append_turn`, FTS triggers included).

Shared by the scale benches (bench/bench_scale.py, bench/bench_chat.py --profile) and the
paging e2e test (a small variant). The database is built once per (seed version, size) into
`.bench-cache/` and reused; `--fresh` rebuilds.

What is realistic about it
- Text: English sentences built from a technical vocabulary with a Zipf-like word frequency
  (common words repeat, rare words are rare), about one message in eight in Chinese, a few
  rare marker words so selective searches have few hits. User messages are short (1–3
  sentences), assistant replies longer (2–12 sentences, sometimes a fenced code block).
- Tool calls: about one turn in eight is user → assistant with a `read_file` call → tool
  result → assistant answer, exactly the four messages a real tool turn stores.
- Time: a year of activity. Chat sizes follow a heavy-tailed distribution (most chats are a
  few turns, some are hundreds); chats start at random times over the year and their turns
  follow minutes apart, so `updated_at` order interleaves like real use. The store stamps
  times with `utc_now_iso` (app/store/chat_records.py, chat_writes.py); this script
  substitutes a clock that returns the simulated time (the only thing it changes — every row
  is written by the store's own code).
- Batching: `Database.transaction()` nests, so many `append_turn` calls share one outer
  transaction (one commit per ~2,000 turns) — the rows are exactly what single turns write.

    .venv/bin/python bench/seed_profile.py [--chats 10000] [--messages 1100000]
                                           [--big 100000] [--fresh]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import app.store.chat_records as chat_records  # noqa: E402
import app.store.chat_writes as chat_writes  # noqa: E402
from app.api.plugins import open_database  # noqa: E402
from app.contracts.messages import Message, ToolCall  # noqa: E402
from app.store.chats import ChatRepository  # noqa: E402

SEED_VERSION = 1  # bump when the generated content changes: the cache key includes it
CACHE = ROOT / ".bench-cache"
TURNS_PER_COMMIT = 2000
YEAR_START = datetime(2025, 12, 1, tzinfo=UTC)


def _words(text: str) -> list[str]:
    return text.split()


COMMON = _words(
    "the a of to and in is it that for on with as this was be at by from or an are not have you"
    " we can will if when then but so do does use one all new more some only also just need"
)
TECH = _words(
    "file code function error test build deploy server client request response cache index query"
    " python rust vue sqlite window model provider token stream tool result workspace folder config"
    " value list string number object class method module package import export return async await"
    " thread process memory disk network socket header body json yaml schema table column row key"
    " branch commit merge release version bug fix patch change review docs readme setting option"
    " path directory permission user account login session timeout retry limit page scroll render"
    " component store route event handler callback promise loop iterator generator decorator type"
)
RARE = ["quarterly", "zeppelin", "marmalade", "kaleidoscope", "aardvark", "quinoa", "xylophone"]
CJK = _words(
    "今天 天气 很好 我们 需要 修改 这个 文件 的 代码 然后 运行 测试 看看 结果 是否 正确 请 帮我"
    " 检查 一下 函数 错误 为什么 会 出现 问题 数据库 查询 速度 太慢 了 可以 优化 吗 谢谢"
)
CODE = (
    "```python\ndef load(path):\n    with open(path) as f:\n        return json.load(f)\n```",
    "```ts\nconst page = await api.invoke('chats.list', { limit: 100 })\n```",
    "```sql\nSELECT id, title FROM chats ORDER BY updated_at DESC LIMIT 100;\n```",
)


@dataclass(frozen=True)
class ProfileSize:
    chats: int = 10_000
    messages: int = 1_100_000
    big: int = 100_000  # messages of the one long chat (0: none)

    @property
    def key(self) -> str:
        return f"profile-v{SEED_VERSION}-{self.chats}c-{self.messages}m-{self.big}b"


class _Text:
    """Sentence and message generators with a Zipf-like vocabulary."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        vocab = COMMON + TECH
        self.words = vocab
        self.weights = list(itertools.accumulate(1.0 / (i + 1) ** 0.9 for i in range(len(vocab))))

    def sentence(self) -> str:
        rng = self.rng
        n = rng.randint(5, 18)
        words = rng.choices(self.words, cum_weights=self.weights, k=n)
        if rng.random() < 0.004:
            words[rng.randrange(n)] = rng.choice(RARE)
        return words[0].capitalize() + " " + " ".join(words[1:]) + rng.choice(".....?!")

    def chinese(self, lo: int, hi: int) -> str:
        return "".join(self.rng.choice(CJK) for _ in range(self.rng.randint(lo, hi))) + "。"

    def user(self) -> str:
        if self.rng.random() < 0.125:
            return self.chinese(6, 30)
        return " ".join(self.sentence() for _ in range(self.rng.randint(1, 3)))

    def assistant(self) -> str:
        rng = self.rng
        if rng.random() < 0.125:
            return "".join(self.chinese(8, 30) for _ in range(rng.randint(2, 6)))
        paragraphs = range(rng.randint(1, 3))
        parts = [" ".join(self.sentence() for _ in range(rng.randint(1, 4))) for _ in paragraphs]
        if rng.random() < 0.15:
            parts.insert(rng.randint(0, len(parts)), rng.choice(CODE))
        return "\n\n".join(parts)


def _turn(text: _Text, n: int) -> list[Message]:
    """One turn's messages: a plain exchange, or (about one in eight) a read_file tool turn."""
    if text.rng.random() < 0.125:
        call = ToolCall(id=f"call_{n}", name="read_file", arguments='{"path": "src/app.py"}')
        body = "\n".join(text.sentence() for _ in range(text.rng.randint(2, 8)))
        return [
            Message(role="user", content=text.user()),
            Message(role="assistant", content="", tool_calls=(call,)),
            Message(role="tool", content=body, tool_call_id=call.id, name="read_file"),
            Message(role="assistant", content=text.assistant()),
        ]
    return [Message(role="user", content=text.user()), Message(role="assistant", content=text.assistant())]


def chat_sizes(size: ProfileSize, rng: random.Random) -> list[int]:
    """Message budget per chat (the big chat first), heavy-tailed, summing to the total."""
    small = size.chats - (1 if size.big else 0)
    rest = size.messages - size.big
    raw = [rng.lognormvariate(0.0, 1.1) for _ in range(small)]
    scale = rest / sum(raw)
    sizes = [max(2, round(r * scale)) for r in raw]
    return ([size.big] if size.big else []) + sizes


class _Clock:
    """The simulated time the store stamps rows with (replaces `utc_now_iso` while seeding)."""

    def __init__(self) -> None:
        self.now = YEAR_START

    def __call__(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _schedule(sizes: list[int], rng: random.Random) -> Iterator[tuple[int, datetime, timedelta]]:
    """(chat index, start time, gap between turns): starts spread over the year, the big chat
    spanning all of it."""
    year = timedelta(days=365)
    for i, n in enumerate(sizes):
        start = YEAR_START + year * rng.random() * (0.02 if n >= 50_000 else 0.97)
        turns = max(1, n // 2)
        span = (YEAR_START + year - start) * (1.0 if n >= 50_000 else min(1.0, rng.random() * 0.1))
        yield i, start, span / turns


def _plan(size: ProfileSize, rng: random.Random) -> Iterator[tuple[int, int, datetime, list[Message]]]:
    """Every turn to write, as (chat index, turn number, simulated time, messages)."""
    text = _Text(rng)
    sizes = chat_sizes(size, rng)
    n = 0
    for i, start, gap in _schedule(sizes, rng):
        when, written, t = start, 0, 0
        while written < sizes[i]:
            batch = _turn(text, n)
            yield i, t, when, batch
            written += len(batch)
            n += len(batch)
            t += 1
            when += gap * (0.5 + rng.random())


def seed(path: Path, size: ProfileSize, *, progress: bool = True) -> None:
    rng = random.Random(SEED_VERSION * 1_000_003 + size.chats)
    clock = _Clock()
    stamped = (chat_records, chat_writes)  # the ChatRepository parts that stamp times
    original = getattr(chat_records, "utc_now_iso")  # noqa: B009  not re-exported
    for module in stamped:
        setattr(module, "utc_now_iso", clock)  # noqa: B010  the stores' clock, by name
    started = time.perf_counter()
    made = 0
    chat_ids: dict[int, str] = {}
    plan = _plan(size, rng)
    try:
        with open_database(path) as db:
            with db.reading() as conn:  # a throwaway file being built: durability is moot
                conn.execute("PRAGMA synchronous = OFF")
                conn.execute("PRAGMA cache_size = -200000")
            repo = ChatRepository(db)
            while chunk := list(itertools.islice(plan, TURNS_PER_COMMIT)):
                with db.transaction():  # append_turn joins it: one commit per chunk
                    for i, t, when, batch in chunk:
                        clock.now = when
                        if t == 0:
                            title = " ".join(batch[0].content.split())[:60]
                            chat_ids[i] = repo.create(title or f"Chat {i}").id
                        repo.append_turn(chat_ids[i], f"turn-{t}", batch)
                        made += len(batch)
                if progress and made // 100_000 != (made - sum(len(c[3]) for c in chunk)) // 100_000:
                    print(f"  {made:,} messages, {time.perf_counter() - started:.0f} s", flush=True)
            with db.reading() as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        for module in stamped:
            setattr(module, "utc_now_iso", original)  # noqa: B010


def ensure_profile(size: ProfileSize = ProfileSize(), *, fresh: bool = False, progress: bool = True) -> Path:
    """The cached database for `size`, built (atomically: temp file then rename) if missing."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"{size.key}.sqlite3"
    if path.exists() and not fresh:
        with open_database(path):  # bring a cached copy to the current schema (migrations run on open)
            pass
        return path
    tmp = CACHE / f"{size.key}.building.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    t0 = time.perf_counter()
    seed(tmp, size, progress=progress)
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    os.replace(tmp, path)
    if progress:
        print(f"seeded {size.key} in {time.perf_counter() - t0:.0f} s", flush=True)
    return path


def stats(path: Path) -> dict[str, float]:
    with open_database(path) as db:
        messages = db.query("SELECT COUNT(*) FROM messages")[0][0]
        chats = db.query("SELECT COUNT(*) FROM chats")[0][0]
        text = db.query("SELECT SUM(LENGTH(CAST(content AS BLOB))) FROM messages")[0][0] or 0
    total = path.stat().st_size
    return {
        "chats": chats,
        "messages": messages,
        "bytes": total,
        "bytes_per_message": total / max(1, messages),
        "text_bytes_per_message": text / max(1, messages),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=1_100_000)
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args()
    path = ensure_profile(ProfileSize(args.chats, args.messages, args.big), fresh=args.fresh)
    s = stats(path)
    print(
        f"{path.name}: {s['chats']:,} chats, {s['messages']:,} messages, {s['bytes'] / 1e6:.0f} MB,"
        f" {s['bytes_per_message']:.0f} bytes per message (text {s['text_bytes_per_message']:.0f})"
    )
    return 0 if math.isfinite(s["bytes_per_message"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
