"""Index runs off the event loop: a worker thread per run, progress back on the app's loop as
`knowledge_progress` events and kept per base (what `knowledge.list` shows while it runs)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from app.contracts.events import AppEvent
from app.knowledge.events import KnowledgeProgress
from app.knowledge.indexer import Indexer, RunResult
from app.knowledge.models import Progress
from app.knowledge.prefs import EmbeddingsAccess
from app.knowledge.vectors import VectorStore

_log = logging.getLogger(__name__)


class Runner:
    def __init__(
        self,
        indexer: Indexer,
        publish: Callable[[AppEvent], None],
        vectors: VectorStore,
        access: EmbeddingsAccess | None,
    ) -> None:
        self.indexer = indexer
        self._publish = publish
        self._vectors = vectors
        self._access = access
        self.progress: dict[str, Progress] = {}
        self.embeddings_error = ""  # the last failure of background embedding ("" = none)

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

    async def run(self, name: str, *, force: bool = False, start_wait_ms: int | None = None) -> RunResult:
        sink = self.sink()
        result = await asyncio.to_thread(
            self.indexer.run, name, sink, force=force, start_wait_ms=start_wait_ms
        )
        # The worker's last progress callbacks are queued on the loop: let them run first.
        await asyncio.sleep(0)
        await self.embed_pending()
        return result

    async def embed_pending(self) -> int:
        """Embed every chunk without a vector of the chosen model, in batches (each batch one
        transaction); 0 when embeddings are off. A failure stops it until the next run."""
        return await asyncio.to_thread(self._embed_pending)

    def _embed_pending(self) -> int:
        from app.knowledge.embedder import EmbeddingFailed, embed

        choice = self._access.choice() if self._access is not None else None
        if choice is None:
            return 0
        done = 0
        try:
            while batch := self._vectors.missing(choice.model):
                vectors = embed(choice, [text for _, text in batch])
                self._vectors.put(
                    choice.model, [(cid, v) for (cid, _), v in zip(batch, vectors, strict=True)]
                )
                done += len(batch)
        except EmbeddingFailed as exc:
            self.embeddings_error = str(exc)
            _log.warning("knowledge embeddings stopped: %s", exc)
            return done
        self.embeddings_error = ""
        return done
