"""Freshness while the app runs: watchfiles on every root of every base.

A batch of changes is sorted per base: a deleted file whose content reappears at a new path
in the same batch is a rename (its chunks move, nothing is re-read); other deletions drop the
file's chunks; saved files are re-indexed (only theirs). A new folder or a changed
`.gitignore` re-scans the base. The set of roots is re-read every `rearm_s` (another process,
e.g. `cashcode kb add`, may have added a folder) and the watch re-armed when it changed. Each
time the watch is armed (at start, and after a re-arm) every base gets a quick scan (size +
mtime, hash where they differ): that is the start-up scan, and it closes the gap before arming.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

from watchfiles import Change, awatch

from app.knowledge.indexer import Indexer, OnProgress
from app.knowledge.store import KnowledgeStore

_log = logging.getLogger(__name__)

ARMED_CHECK_MS = 500  # how often an idle watch yields (the first yield says it is armed)


class KnowledgeWatcher:
    def __init__(
        self,
        store: KnowledgeStore,
        indexer: Indexer,
        on_progress: OnProgress,
        after_change: Callable[[], Awaitable[object]],
        *,
        rearm_s: float = 2.0,
        after_scan: Callable[[], object] | None = None,
    ) -> None:
        self._store = store
        self._indexer = indexer
        self._on_progress = on_progress
        self._after_change = after_change  # e.g. embed the new chunks
        self._rearm_s = rearm_s
        # Blocking, run in a thread after each armed scan: e.g. give the scan's peak back to
        # the OS (a 10,000-file scan otherwise stays in the idle app's memory; bench README).
        self._after_scan = after_scan

    async def run(self) -> None:
        while True:
            roots = await asyncio.to_thread(self._store.all_roots)
            watched = await asyncio.to_thread(_existing, roots)
            if not watched:
                await asyncio.sleep(self._rearm_s)
                continue
            stop = asyncio.Event()
            rearm = asyncio.get_running_loop().create_task(self._watch_roots(roots, stop))
            armed = False
            try:
                async for changes in awatch(
                    *watched, stop_event=stop, debounce=200, step=50, yield_on_timeout=True,
                    rust_timeout=ARMED_CHECK_MS,
                ):  # fmt: skip
                    if not armed:
                        # The first yield comes from a running watch: a scan now catches what
                        # changed before it was armed (while the app was closed, or just now).
                        armed = True
                        await self._scan(roots)
                    if changes:
                        await self._apply(roots, changes)
            finally:
                rearm.cancel()

    async def _scan(self, roots: dict[str, list[str]]) -> None:
        for name in roots:
            try:
                await asyncio.to_thread(self._indexer.run, name, self._on_progress)
            except Exception:  # a vanished base or an unreadable root: the others still scan
                _log.warning("knowledge base %r: scan failed", name, exc_info=True)
        if self._after_scan is not None:
            try:
                await asyncio.to_thread(self._after_scan)
            except Exception:
                _log.warning("knowledge: work after the scan failed", exc_info=True)
        try:
            await self._after_change()
        except Exception:
            _log.warning("knowledge: work after the scan failed", exc_info=True)

    async def _watch_roots(self, roots: dict[str, list[str]], stop: asyncio.Event) -> None:
        # A single-file root replaced by an editor (a copy renamed over it) is a new inode the
        # watch does not see: a changed inode re-arms too, and the arm's scan re-reads it.
        inodes = await asyncio.to_thread(_file_inodes, roots)
        while True:
            await asyncio.sleep(self._rearm_s)
            now = await asyncio.to_thread(self._store.all_roots)
            if now != roots or await asyncio.to_thread(_file_inodes, now) != inodes:
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
        # Only this batch's records are read (a base may hold 10,000 files: reading them all
        # cost tens of milliseconds per save).
        by_hash: dict[str, str] = {}
        for old in gone:
            state = self._store.file_state(name, old)
            if state is not None:
                by_hash.setdefault(state.sha256, old)
            else:  # maybe a folder: everything indexed under it goes
                for path in self._store.paths_under(name, old):
                    self._store.remove_file(name, path)
        for new in present:
            unknown = bool(by_hash) and self._store.file_state(name, new) is None
            old = by_hash.pop(_sha(new), "") if unknown else ""
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


def _file_inodes(roots: dict[str, list[str]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for paths in roots.values():
        for p in paths:
            try:
                st = os.stat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                out[p] = st.st_ino
    return out
