"""Index runs off the event loop: a worker thread per run, progress back on the app's loop as
`knowledge_progress` events and kept per base (what `knowledge.list` shows while it runs)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from app.contracts.events import AppEvent
from app.knowledge.events import KnowledgeProgress
from app.knowledge.indexer import Indexer, RunResult
from app.knowledge.models import Progress


class Runner:
    def __init__(self, indexer: Indexer, publish: Callable[[AppEvent], None]) -> None:
        self.indexer = indexer
        self._publish = publish
        self.progress: dict[str, Progress] = {}

    def sink(self) -> Callable[[Progress], None]:
        """A progress callback for worker threads (must be made on the loop)."""
        loop = asyncio.get_running_loop()

        def sink(p: Progress) -> None:
            loop.call_soon_threadsafe(self._on_progress, p)

        return sink

    def _on_progress(self, p: Progress) -> None:
        if p.finished:
            self.progress.pop(p.base, None)
        else:
            self.progress[p.base] = p
        self._publish(
            KnowledgeProgress(base=p.base, done=p.done, total=p.total, current=p.current, finished=p.finished)
        )

    async def run(self, name: str, *, force: bool = False) -> RunResult:
        sink = self.sink()
        result = await asyncio.to_thread(self.indexer.run, name, sink, force=force)
        # The worker's last progress callbacks are queued on the loop: let them run first.
        await asyncio.sleep(0)
        return result
