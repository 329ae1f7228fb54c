"""An index run reads its files in worker processes (app/knowledge/pool.py): the index is the
one an in-process run writes, byte for byte; a worker that cannot start, dies mid-run or
answers garbage leaves the rest of the run to the app's process; the frozen build's hidden
`--kb-worker` entry speaks the same protocol (JSON lines, app/knowledge/worker.py)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.knowledge import pool, worker
from app.knowledge.indexer import Indexer, RunResult
from app.knowledge.prepare import Failed, Job, Prepared, Unchanged, read_jobs
from app.knowledge.store import KnowledgeStore
from tests.knowledge.consistency import check_consistent
from tests.knowledge.corpus import build

# Answers one group with the real worker code, then dies: the run must take over mid-way.
ONE_THEN_DIE = (
    "import sys; from app.knowledge.prepare import read_jobs; from app.knowledge import worker as w;"
    " out = w.encode_outcomes(read_jobs(w.decode_jobs(sys.stdin.buffer.readline())));"
    " sys.stdout.buffer.write(out); sys.stdout.buffer.flush(); sys.exit(3)"
)
# Answers every group, but for its files in the wrong order: the answers must not be used.
SHUFFLED = (
    "import sys; from app.knowledge.prepare import read_jobs; from app.knowledge import worker as w\n"
    "for line in sys.stdin.buffer:\n"
    "    sys.stdout.buffer.write(w.encode_outcomes(read_jobs(w.decode_jobs(line)[::-1])))\n"
    "    sys.stdout.buffer.flush()\n"
)
GARBAGE = "import sys; sys.stdout.buffer.write(b'[[\"p\", 1]]\\n{nope\\n'); sys.stdout.flush()"


def _corpus(tmp_path: Path) -> Path:
    root = build(tmp_path / "kb")
    for n in range(40):  # enough groups (16 files each) for several round trips
        (root / f"note{n:02d}.md").write_text(f"# Note {n}\n\nplum {n}\n\n" + "filler text\n" * n, "utf-8")
    return root


def _index(tmp_path: Path, root: Path, tag: str, workers: int) -> tuple[RunResult, str, Path]:
    db_path = tmp_path / f"{tag}.sqlite3"
    db = open_database(db_path)
    try:
        store = KnowledgeStore(db)
        store.create("kb")
        store.add_root("kb", str(root))
        result = Indexer(store, lambda: (), 20 << 20, workers=workers).run("kb", lambda _p: None)
        digest = hashlib.sha256()
        for row in db.query(
            "SELECT f.path, f.size, f.sha256, c.ord, c.start_line, c.end_line, c.heading, c.text, t.tokens"
            " FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id JOIN kb_fts t ON t.rowid = c.id"
            " ORDER BY f.path, c.ord"
        ):
            digest.update(repr(tuple(row)).encode())
        assert store.search("plum 39", None, 1)[0].path == str(root / "note39.md")
        assert store.pending_names() == []
    finally:
        db.close()
    return result, digest.hexdigest(), db_path


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Run every size of run through the workers, and count the workers started."""
    monkeypatch.setattr(pool, "MIN_FILES", 1)
    started: list[int] = []
    real = pool._Worker.__init__

    def init(self: pool._Worker, groups: list[list[Job]]) -> None:
        real(self, groups)
        started.append(len(groups))

    monkeypatch.setattr(pool._Worker, "__init__", init)
    return started


def test_workers_write_the_same_index_as_the_apps_own_process(tmp_path: Path, counted: list[int]) -> None:
    root = _corpus(tmp_path)
    alone, expected, _ = _index(tmp_path, root, "alone", workers=0)
    assert counted == []
    for workers in (1, 2):
        result, digest, db_path = _index(tmp_path, root, f"w{workers}", workers=workers)
        assert (result, digest) == (alone, expected)
        assert check_consistent(db_path) == alone.indexed
    assert len(counted) == 3 and sum(counted) == 2 * sum(counted[:1])  # one worker, then two sharing


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "-c", ONE_THEN_DIE],
        [sys.executable, "-c", GARBAGE],
        [sys.executable, "-c", SHUFFLED],
        [sys.executable, "-c", "import sys; sys.exit(3)"],
        ["/nonexistent/kb-worker"],
    ],
    ids=["dies-after-one-group", "answers-garbage", "answers-out-of-order", "exits-at-once", "cannot-start"],
)
def test_a_failing_worker_leaves_the_rest_of_the_run_to_the_app(
    tmp_path: Path, counted: list[int], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    root = _corpus(tmp_path)
    alone, expected, _ = _index(tmp_path, root, "alone", workers=0)
    monkeypatch.setattr(pool, "worker_argv", lambda: argv)
    result, digest, db_path = _index(tmp_path, root, "broken", workers=1)
    assert (result, digest) == (alone, expected)
    assert check_consistent(db_path) == alone.indexed


def test_the_hidden_kb_worker_entry_speaks_the_protocol(tmp_path: Path) -> None:
    note = tmp_path / "n.md"
    note.write_text("# 标题 Title\n\nplum \\n\n", encoding="utf-8")
    known = read_jobs([Job(str(note), note.stat().st_mtime_ns, None)])[0]
    assert isinstance(known, Prepared)
    jobs = [
        Job(str(note), note.stat().st_mtime_ns, None),
        Job(str(tmp_path / "gone.md"), 0, None),
        Job(str(note), note.stat().st_mtime_ns, known.state),  # same content: unchanged
    ]
    done = subprocess.run(
        [sys.executable, "-m", "app", "--kb-worker"],
        input=worker.encode_jobs(jobs) + worker.encode_jobs(jobs[:1]),
        capture_output=True,
        timeout=60,
        check=True,
    )
    answers = [worker.decode_outcomes(line) for line in done.stdout.splitlines()]
    assert answers == [read_jobs(jobs), read_jobs(jobs[:1])]
    first, gone, same = answers[0]
    assert isinstance(first, Prepared) and first.rows[0][:3] == (1, 3, "标题 Title")
    assert isinstance(gone, Failed) and gone.reason.startswith("cannot be read")
    assert same == Unchanged(str(note), known.state)
    with pytest.raises(ValueError):
        worker.decode_outcomes(b'[["x"]]')
