"""Index runs off the event loop: a worker thread per run, progress back on the app's loop as
`knowledge_progress` events and kept per base (what `knowledge.list` shows while it runs)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from app.contracts.events import AppEvent
from app.knowledge.events import KnowledgeProgress
from app.knowledge.indexer import Indexer, RunResult
from app.knowledge.models import Progress
from app.knowledge.prefs import EmbeddingsAccess
from app.knowledge.vectors import VectorStore
from app.llm.gate import ProviderGate

_log = logging.getLogger(__name__)


class Runner:
    def __init__(
        self,
        indexer: Indexer,
        publish: Callable[[AppEvent], None],
        vectors: VectorStore,
        access: EmbeddingsAccess | None,
        gate_for: Callable[[str], ProviderGate] | None = None,
    ) -> None:
        self._gate_for = gate_for
        self._later: set[asyncio.Task[int]] = set()  # embeddings that wait for a turn
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
        if await self._turn_running():
            # A turn of the embeddings provider runs: the vectors follow it, the run answers now
            # (the search is lexical until then) rather than after the user's turn.
            task = asyncio.get_running_loop().create_task(self.embed_pending())
            self._later.add(task)
            task.add_done_callback(self._later.discard)
        else:
            await self.embed_pending()
        return result

    async def _turn_running(self) -> bool:
        """A turn of the embeddings provider runs now (settings are read off the loop)."""
        choice = await asyncio.to_thread(self._access.choice) if self._access is not None else None
        gate = self._gate(choice.provider.id) if choice is not None else None
        return gate is not None and gate.turn_running

    async def embed_pending(self) -> int:
        """Embed every chunk without a vector of the chosen model, in batches (each batch one
        transaction); 0 when embeddings are off. A failure stops it until the next run. Each
        batch is background work of its provider: on a local one it waits for the user's turns
        and is cancelled and sent again for them (app/llm/gate.py), as consolidation is."""
        from app.knowledge.embedder import EmbeddingFailed, embed

        choice = await asyncio.to_thread(self._access.choice) if self._access is not None else None
        if choice is None:
            return 0
        gate = self._gate(choice.provider.id)
        done = 0
        try:
            while batch := await asyncio.to_thread(self._vectors.missing, choice.model):
                texts = [text for _, text in batch]

                def call(texts: list[str] = texts) -> Awaitable[list[list[float]]]:
                    return asyncio.to_thread(embed, choice, texts)

                vectors = await (gate.background(call) if gate is not None else call())
                pairs = [(cid, v) for (cid, _), v in zip(batch, vectors, strict=True)]
                await asyncio.to_thread(self._vectors.put, choice.model, pairs)
                done += len(batch)
        except EmbeddingFailed as exc:
            self.embeddings_error = str(exc)
            _log.warning("knowledge embeddings stopped: %s", exc)
            return done
        self.embeddings_error = ""
        return done

    def _gate(self, provider_id: str) -> ProviderGate | None:
        if self._gate_for is None:
            return None
        try:
            return self._gate_for(provider_id)
        except Exception:  # gone or unreadable since: the embeddings call reports it
            _log.debug("no gate for provider %s", provider_id, exc_info=True)
            return None
