"""The watcher's armed scan is followed by the capability's `after_scan` work (giving the scan's
memory back, decision 256): called once the scan is done, not before, and a failing one does
not stop the watch."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.api.plugins import open_database
from app.knowledge.indexer import Indexer
from app.knowledge.store import KnowledgeStore
from app.knowledge.watch import KnowledgeWatcher


async def test_after_scan_runs_once_the_armed_scan_is_done(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\napricot\n", encoding="utf-8")
    db = open_database(tmp_path / "db.sqlite3")
    store = KnowledgeStore(db)
    store.create("n")
    store.add_root("n", str(root.resolve()))
    seen: list[int] = []
    called = asyncio.Event()

    def after_scan() -> None:
        seen.append(len(store.file_states("n")))
        called.set()
        raise RuntimeError("a failing release must not stop the watch")

    async def after_change() -> None:
        return None

    indexer = Indexer(store, lambda: (), 1 << 20)
    watcher = KnowledgeWatcher(store, indexer, lambda _p: None, after_change, after_scan=after_scan)
    task = asyncio.get_running_loop().create_task(watcher.run())
    try:
        await asyncio.wait_for(called.wait(), 30)
        assert seen == [1]  # the scan had indexed the file when it ran
        (root / "b.md").write_text("# B\n\nblueberry\n", encoding="utf-8")
        for _ in range(300):  # the watch still applies changes (bounded poll)
            if store.search("blueberry", None, 1):
                break
            await asyncio.sleep(0.05)
        assert [Path(h.path).name for h in store.search("blueberry", None, 1)] == ["b.md"]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        db.close()
