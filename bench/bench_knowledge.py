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
- update, direct: 10 times, append a paragraph with a new word to one file, then
  `Indexer.update_path` (what the watcher calls for the batch), and search the new word; wall
  time of both.
- update, through the watcher (the budget's "after the save event"): the app's own
  `KnowledgeWatcher` runs on an event loop of its own over the same database; 10 times, append
  a new word to one file (the save) and poll `KnowledgeStore.search` every 5 ms until the file
  is the hit. Time from the write returning to the hit: event delivery, watchfiles' grouping
  (`step`/`debounce`), the batch and the search.
- idle memory (`--pss-runs`, default 3): `cashcode serve` (python -m app.server) started on a
  data folder whose database holds the index built above (its watcher armed on the corpus and
  its start-up scan done), and on an empty data folder, alternately; PSS of the server process
  (tests/desktop/procs.py) after `--idle` seconds (default 30). Medians and the ratio.

Prints Markdown table rows. Run from the repo root:
.venv/bin/python bench/bench_knowledge.py [--files 10000] [--mb 200] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
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
    from app.knowledge.prepare import FileState
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


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def size_of(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_updates(store: KnowledgeStore, indexer: Indexer, root: Path) -> None:
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
        f"| changed file: update_path + search (10 runs) | median {statistics.median(updates):.0f} ms,"
        f" max {max(updates):.0f} ms | — |"
    )


def bench_watched_updates(store: KnowledgeStore, indexer: Indexer, root: Path) -> None:
    from app.knowledge.watch import KnowledgeWatcher

    loop = asyncio.new_event_loop()
    armed = threading.Event()

    async def after_change() -> None:
        armed.set()  # the first call follows the start-up scan of the armed watch

    watcher = KnowledgeWatcher(store, indexer, lambda _p: None, after_change)
    task = loop.create_task(watcher.run())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        assert armed.wait(600), "the watch did not arm"
        paths = sorted(root.rglob("note*.md"))[10:20]
        latencies = []
        for n, path in enumerate(paths):
            original = path.read_bytes()
            word = f"watchword{n}x"
            try:
                with path.open("a", encoding="utf-8") as f:
                    f.write(f"\n{word} appears now.\n")
                t = time.perf_counter()
                while not (hits := store.search(word, None, 1)) or hits[0].path != str(path):
                    assert time.perf_counter() - t < 30, "the change never became searchable"
                    time.sleep(0.005)
                latencies.append((time.perf_counter() - t) * 1000)
            finally:
                path.write_bytes(original)
                indexer.update_path("bench", path)
            time.sleep(0.3)  # the restore's own event passes before the next save
        print(
            f"| changed file searchable after the save, through the watcher (10 runs) | median"
            f" {statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms | ≤ 500 ms |"
        )
    finally:
        loop.call_soon_threadsafe(task.cancel)
        time.sleep(0.5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def serve_pss_mb(home: Path, idle_s: float) -> float:
    from tests.desktop.procs import pss_kib
    from tests.server.process import free_port, isolated_env, serve_process

    env = isolated_env(home)
    with serve_process(["--no-open", "--port", str(free_port())], env, cwd=ROOT) as served:
        time.sleep(idle_s)
        return pss_kib(served.proc.pid) / 1024


def bench_idle_memory(with_index: Path, runs: int, idle_s: float, mb: float) -> None:
    with tempfile.TemporaryDirectory() as empty_home:
        serve_pss_mb(Path(empty_home), 5)  # warm-up: first-run work, the OS file cache
        pairs = []
        for i in range(runs):
            a = serve_pss_mb(with_index, idle_s)
            b = serve_pss_mb(Path(empty_home), idle_s)
            pairs.append((a, b))
            print(f"  pss run {i + 1}: with index {a:.1f} MB, without {b:.1f} MB ({load()})")
    ratios = [a / b for a, b in pairs]
    print(
        f"| idle PSS of serve, {mb:.0f} MB index loaded vs none (median of {runs}, {idle_s:g} s idle) |"
        f" {statistics.median(a for a, _ in pairs):.1f} MB vs"
        f" {statistics.median(b for _, b in pairs):.1f} MB:"
        f" {100 * (statistics.median(ratios) - 1):+.1f} % ({100 * (min(ratios) - 1):+.1f} to"
        f" {100 * (max(ratios) - 1):+.1f} %) | ≤ +10 % |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--vectors", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="1,000 files / 20 MB, 2,000 vectors")
    parser.add_argument("--pss-runs", type=int, default=3)
    parser.add_argument("--idle", type=float, default=30.0)
    args = parser.parse_args()
    if args.quick:
        args.files, args.mb, args.vectors = 1000, 20, 2000
    print(f"started ({load()})")
    bench_vectors(args.vectors)
    root = corpus(args.files, args.mb)
    total = size_of(root)
    with tempfile.TemporaryDirectory() as tmp:
        # The database sits where `cashcode serve` keeps it, so the memory run can start on it.
        home = Path(tmp) / "with-index"
        data = home / "data"
        data.mkdir(parents=True)
        db_path = data / "cashcode.sqlite3"
        db = open_database(db_path)
        store = KnowledgeStore(db)
        store.create("bench")
        store.add_root("bench", str(root))
        indexer = Indexer(store, lambda: (), 20 * 1024 * 1024)
        wall, cpu, kids = time.perf_counter(), time.process_time(), _children_cpu()
        result = indexer.run("bench", lambda _p: None)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        kids = _children_cpu() - kids  # the run's worker processes (app/knowledge/pool.py)
        chunks = db.query("SELECT count(*) FROM kb_chunks")[0][0]
        db_size = os.path.getsize(db_path) + os.path.getsize(f"{db_path}-wal")
        print(
            f"| corpus | {result.indexed:,} files, {total / 1e6:.0f} MB, {chunks:,} chunks,"
            f" database {db_size / 1e6:.0f} MB |"
        )
        print(
            f"| index throughput | {total / 1e6 / wall:.1f} MB/s wall ({wall:.1f} s); CPU {cpu:.1f} s in"
            f" the app's process + {kids:.1f} s in its workers ({load()}) | ≥ 5 MB/s |"
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
        bench_updates(store, indexer, root)
        bench_watched_updates(store, indexer, root)
        db.close()
        if args.pss_runs:
            bench_idle_memory(home, args.pss_runs, args.idle, total / 1e6)
        shutil.rmtree(home, ignore_errors=True)
    print(f"finished ({load()})")


if __name__ == "__main__":
    main()
