"""The index run writes its files in batches (bench_knowledge.py): batches land in
order, each whole; a failing write stops the run with that error, leaves the base pending
(resumed by the next run) and keeps what was committed before it consistent."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from app.api.plugins import open_database
from app.knowledge import indexer as indexer_mod
from app.knowledge.indexer import Indexer
from app.knowledge.prepare import Prepared
from app.knowledge.store import KnowledgeStore


class FailingStore(KnowledgeStore):
    """The real store; its third batch write fails like a full disk would."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.batches: list[list[str]] = []
        self.fail_at: int | None = 2

    def put_files(self, name: str, files: Sequence[Prepared]) -> None:
        if len(self.batches) == self.fail_at:
            raise OSError(28, "No space left on device")
        super().put_files(name, files)
        self.batches.append([f.path for f in files])


def test_batches_are_written_in_order_and_a_failed_write_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(indexer_mod, "BATCH_FILES", 3)
    root = tmp_path / "notes"
    root.mkdir()
    for n in range(10):
        (root / f"n{n:02d}.md").write_text(f"# Note {n}\n\nplum {n:02d}\n", encoding="utf-8")
    db = open_database(tmp_path / "db.sqlite3")
    try:
        store = FailingStore(db)
        store.create("n")
        store.add_root("n", str(root))
        with pytest.raises(OSError, match="No space left"):
            Indexer(store, lambda: (), 1 << 20).run("n", lambda _p: None)
        names = [[Path(p).name for p in batch] for batch in store.batches]
        assert names == [["n00.md", "n01.md", "n02.md"], ["n03.md", "n04.md", "n05.md"]]
        assert sorted(Path(p).name for p in store.file_states("n")) == [n for b in names for n in b]
        assert store.pending_names() == ["n"]  # the next run resumes
        store.fail_at = None
        result = Indexer(store, lambda: (), 1 << 20).run("n", lambda _p: None)
        assert (result.indexed, result.unchanged) == (4, 6) and store.pending_names() == []
        # "09", not "9": one-character tokens are not searched (issue 40 item 15)
        assert [h.path for h in store.search("plum 09", None, 1)] == [str(root / "n09.md")]
    finally:
        db.close()
