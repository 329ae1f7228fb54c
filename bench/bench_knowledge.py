"""Knowledge-base budgets (issue 26): indexing throughput ≥ 5 MB/s of text (lexical, CPU time
stated), `kb search` p95 ≤ 50 ms at 200,000 chunks, one changed file searchable ≤ 500 ms after
the save event.

Method:
- corpus: `--files` files (default 10,000) holding `--mb` MB of text (default 200), generated
  once into .bench-cache/ with a fixed seed: Markdown with headings and paragraphs (80 %), Python
  (15 %), Chinese text (5 %); words from a Zipf-distributed 20,000-word vocabulary.
- index: the app's own `Indexer.run` (discovery, extraction, chunking, the shared tokeniser,
  one SQLite transaction per file) into a fresh database; wall and CPU time of the run,
  throughput = corpus bytes / wall time.
- search: 300 queries of 1–3 vocabulary words (some CJK) through `KnowledgeStore.search` (what
  `knowledge.search` and the tool call), limit 10; p50/p95 of per-query wall time.
- vectors (`--vectors N`, default 20,000, dimension 768): the brute-force scan of
  `VectorStore.nearest` over N stored float32 vectors, 10 queries, median (the embeddings
  themselves come from the provider and are not timed).
- update: 10 times, append a paragraph with a new word to one file, then `Indexer.update_path`
  (what the watcher calls for the batch), and search the new word; wall time of both. The
  watcher's own debounce (200 ms) comes on top of this and is stated separately.

Prints Markdown table rows. Run from the repo root:
.venv/bin/python bench/bench_knowledge.py [--files 10000] [--mb 200]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.api.plugins import open_database  # noqa: E402
from app.knowledge.indexer import Indexer  # noqa: E402
from app.knowledge.store import KnowledgeStore  # noqa: E402

CACHE = ROOT / ".bench-cache"
SYLLABLES = ["ka", "lo", "mi", "ren", "ta", "vo", "sel", "dun", "pri", "qua", "zen", "bor", "fi", "nu", "gra"]
HAN = "知识库可以离线搜索文件数据模型检索向量索引增量更新中文分词引用来源段落标题"


def vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def corpus(files: int, mb: int) -> Path:
    root = CACHE / f"knowledge-{files}-{mb}"
    if (root / ".done").exists():
        return root
    rng = random.Random(26)
    vocab = vocabulary(rng)
    weights = [1 / (i + 1) for i in range(len(vocab))]
    per_file = mb * 1024 * 1024 // files
    root.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        kind = n % 20
        folder = root / f"d{n % 100:02d}"
        folder.mkdir(exist_ok=True)
        words = rng.choices(vocab, weights, k=per_file // 9)
        if kind < 16:
            out, i = [], 0
            while i < len(words):
                if i % 600 == 0:
                    out.append(f"\n## {' '.join(words[i : i + 3]).title()}\n")
                out.append(" ".join(words[i : i + 80]) + ".\n")
                i += 80
            (folder / f"note{n}.md").write_text("".join(out), encoding="utf-8")
        elif kind < 19:
            lines = [f"def {w}_{i}(x):\n    return x + {i}  # {w}\n\n" for i, w in enumerate(words[::8])]
            (folder / f"mod{n}.py").write_text("".join(lines), encoding="utf-8")
        else:
            text = "".join(rng.choice(HAN) for _ in range(per_file // 3))
            (folder / f"zh{n}.txt").write_text(
                "\n\n".join(text[i : i + 200] for i in range(0, len(text), 200)), encoding="utf-8"
            )
    (root / ".done").write_text("", encoding="utf-8")
    return root


def bench_vectors(count: int, dim: int = 768) -> None:
    from app.knowledge.models import Chunk
    from app.knowledge.store import FileState
    from app.knowledge.vectors import VectorStore

    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "v.sqlite3")
        store, vectors = KnowledgeStore(db), VectorStore(db)
        store.create("v")
        per_file = 100
        for f in range(count // per_file):
            chunks = [
                Chunk(start_line=i + 1, end_line=i + 1, heading="", text=f"t{i}") for i in range(per_file)
            ]
            store.put_file("v", f"/v/{f}.txt", FileState(1, 1, str(f)), chunks)
        ids = [int(r[0]) for r in db.query("SELECT id FROM kb_chunks")]
        for start in range(0, len(ids), 1000):
            vectors.put(
                "m", [(i, [rng.uniform(-1, 1) for _ in range(dim)]) for i in ids[start : start + 1000]]
            )
        times = []
        for _ in range(10):
            q = [rng.uniform(-1, 1) for _ in range(dim)]
            t = time.perf_counter()
            vectors.nearest("m", q, None, 50)
            times.append((time.perf_counter() - t) * 1000)
        print(
            f"| vector scan, {len(ids):,} vectors × {dim} (brute force) | median"
            f" {statistics.median(times):.0f} ms, max {max(times):.0f} ms | — |"
        )
        db.close()


def size_of(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--vectors", type=int, default=20_000)
    args = parser.parse_args()
    bench_vectors(args.vectors)
    root = corpus(args.files, args.mb)
    total = size_of(root)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "bench.sqlite3")
        store = KnowledgeStore(db)
        store.create("bench")
        store.add_root("bench", str(root))
        indexer = Indexer(store, lambda: (), 20 * 1024 * 1024)
        wall, cpu = time.perf_counter(), time.process_time()
        result = indexer.run("bench", lambda _p: None)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        chunks = db.query("SELECT count(*) FROM kb_chunks")[0][0]
        db_size = os.path.getsize(Path(tmp) / "bench.sqlite3") + os.path.getsize(
            Path(tmp) / "bench.sqlite3-wal"
        )
        print(
            f"| corpus | {result.indexed:,} files, {total / 1e6:.0f} MB, {chunks:,} chunks,"
            f" database {db_size / 1e6:.0f} MB |"
        )
        print(
            f"| index throughput | {total / 1e6 / wall:.1f} MB/s (wall {wall:.1f} s, CPU {cpu:.1f} s)"
            " | ≥ 5 MB/s |"
        )

        rng = random.Random(7)
        vocab = vocabulary(random.Random(26))
        queries = [" ".join(rng.choices(vocab[:5000], k=rng.randint(1, 3))) for _ in range(280)]
        queries += [HAN[i : i + 4] for i in range(0, 40, 2)]
        store.search(queries[0], None, 10)  # warm the page cache once
        times = []
        for q in queries:
            t = time.perf_counter()
            store.search(q, None, 10)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        print(
            f"| kb search ({len(queries)} queries) | p50 {statistics.median(times):.1f} ms,"
            f" p95 {p95:.1f} ms | p95 ≤ 50 ms |"
        )

        paths = sorted(root.rglob("note*.md"))[:10]
        updates = []
        for n, path in enumerate(paths):
            original = path.read_bytes()
            try:
                with path.open("a", encoding="utf-8") as f:
                    f.write(f"\nfreshword{n} appears now.\n")
                t = time.perf_counter()
                indexer.update_path("bench", path)
                found = store.search(f"freshword{n}", None, 1)
                updates.append((time.perf_counter() - t) * 1000)
                assert found and found[0].path == str(path)
            finally:
                path.write_bytes(original)
                indexer.update_path("bench", path)
        print(
            f"| changed file re-indexed + searchable (10 runs) | median {statistics.median(updates):.0f} ms,"
            f" max {max(updates):.0f} ms (+ 200 ms watcher debounce) | ≤ 500 ms |"
        )
        db.close()


if __name__ == "__main__":
    main()
