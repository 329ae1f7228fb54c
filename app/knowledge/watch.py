"""Freshness while the app runs: watchfiles on every root of every base.

A batch of changes is sorted per base: a deleted file whose content reappears at a new path
in the same batch is a rename (its chunks move, nothing is re-read); other deletions drop the
file's chunks; saved files are re-indexed (only theirs). A new folder or a changed
`.gitignore` re-scans the base. The set of roots is re-read every `rearm_s` (another process,
e.g. `cashcode kb add`, may have added a folder) and the watch re-armed when it changed.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from watchfiles import Change, awatch

from app.knowledge.indexer import Indexer, OnProgress
from app.knowledge.store import KnowledgeStore

_log = logging.getLogger(__name__)


class KnowledgeWatcher:
    def __init__(
        self,
        store: KnowledgeStore,
        indexer: Indexer,
        on_progress: OnProgress,
        after_change: Callable[[], Awaitable[object]],
        *,
        rearm_s: float = 2.0,
    ) -> None:
        self._store = store
        self._indexer = indexer
        self._on_progress = on_progress
        self._after_change = after_change  # e.g. embed the new chunks
        self._rearm_s = rearm_s

    async def run(self) -> None:
        while True:
            roots = await asyncio.to_thread(self._store.all_roots)
            watched = await asyncio.to_thread(_existing, roots)
            if not watched:
                await asyncio.sleep(self._rearm_s)
                continue
            stop = asyncio.Event()
            rearm = asyncio.get_running_loop().create_task(self._watch_roots(roots, stop))
            try:
                async for changes in awatch(
                    *watched, stop_event=stop, debounce=200, step=50, yield_on_timeout=True,
                    rust_timeout=int(self._rearm_s * 1000),
                ):  # fmt: skip
                    if changes:
                        await self._apply(roots, changes)
            finally:
                rearm.cancel()

    async def _watch_roots(self, roots: dict[str, list[str]], stop: asyncio.Event) -> None:
        while True:
            await asyncio.sleep(self._rearm_s)
            now = await asyncio.to_thread(self._store.all_roots)
            if now != roots:
                stop.set()
                return

    async def _apply(self, roots: dict[str, list[str]], changes: set[tuple[Change, str]]) -> None:
        for name, paths in roots.items():
            mine = {(c, p) for c, p in changes if any(_under(p, r) for r in paths)}
            if not mine:
                continue
            try:
                await asyncio.to_thread(self._apply_base, name, mine)
            except Exception:  # one base's failure must not stop the watch of the others
                _log.warning("knowledge base %r: applying file changes failed", name, exc_info=True)
        try:
            await self._after_change()
        except Exception:
            _log.warning("knowledge: work after file changes failed", exc_info=True)

    def _apply_base(self, name: str, changes: set[tuple[Change, str]]) -> None:
        gone = sorted({p for c, p in changes if c == Change.deleted and not Path(p).exists()})
        present = sorted({p for _, p in changes if Path(p).exists()})
        if any(Path(p).is_dir() for p in present) or any(Path(p).name == ".gitignore" for _, p in changes):
            self._indexer.run(name, self._on_progress)
            return
        states = self._store.file_states(name)
        by_hash: dict[str, str] = {}
        for old in gone:
            if old in states:
                by_hash.setdefault(states[old].sha256, old)
            else:  # maybe a folder: everything indexed under it goes
                for path in states:
                    if _under(path, old):
                        self._store.remove_file(name, path)
        for new in present:
            old = by_hash.pop(_sha(new), "") if by_hash and new not in states else ""
            if old:
                self._indexer.move_path(name, Path(old), Path(new))
            else:
                self._indexer.update_path(name, Path(new))
        for old in by_hash.values():
            self._store.remove_file(name, old)


def _under(path: str, root: str) -> bool:
    return Path(path).is_relative_to(root)


def _sha(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def _existing(roots: dict[str, list[str]]) -> list[str]:
    return sorted({p for paths in roots.values() for p in paths if Path(p).exists()})
