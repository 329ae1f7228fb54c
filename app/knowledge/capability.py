"""The knowledge capability: routes, the `knowledge_search` tool, and freshness.

- `toolset`: `knowledge_search`, offered only while at least one knowledge base exists (a
  one-row query; nothing else of the package loads for a turn until the tool is called).
- `start` (desktop, serve): the watcher (app/knowledge/watch.py), which scans every base once
  it is armed (the start-up scan; it resumes a run cut short).
- Routes: app/knowledge/handlers.py (imported on the first route call).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, Handler, ListedTool
from app.contracts.events import AppEvent
from app.contracts.messages import ToolSpec
from app.contracts.turn import ToolBox, TurnSpec
from app.knowledge.store import KnowledgeStore
from app.knowledge.tool import KnowledgeSearchTool
from app.store.db import Database

if TYPE_CHECKING:
    from app.knowledge.prefs import EmbeddingsAccess
    from app.knowledge.runner import Runner
    from app.knowledge.search import KnowledgeSearcher
    from app.knowledge.vectors import VectorStore
    from app.llm.gate import ProviderGate


DEFAULT_SIZE_CAP = 20 * 1024 * 1024


class _Tools:
    def __init__(self, tool: KnowledgeSearchTool) -> None:
        self._tool = tool

    def specs(self) -> Sequence[ToolSpec]:
        return [self._tool.spec()]

    def get(self, name: str) -> KnowledgeSearchTool | None:
        return self._tool if name == self._tool.name else None


class KnowledgeCapability(Capability):
    name = "knowledge"

    def __init__(
        self,
        db: Database,
        private_roots: Sequence[Path],
        publish: Callable[[AppEvent], None],
        *,
        size_cap: int = DEFAULT_SIZE_CAP,
        embeddings: EmbeddingsAccess | None = None,
        gate_for: Callable[[str], ProviderGate] | None = None,
    ) -> None:
        self.store = KnowledgeStore(db)
        self._gate_for = gate_for
        self._db = db
        self._embeddings = embeddings
        self.private_roots = tuple(private_roots)
        self._publish = publish
        self._size_cap = size_cap
        self._tools = _Tools(KnowledgeSearchTool(self.store, lambda: self.searcher))
        self._tasks: set[asyncio.Task[None]] = set()

    @cached_property
    def vectors(self) -> VectorStore:
        from app.knowledge.vectors import VectorStore

        return VectorStore(self._db)

    @cached_property
    def searcher(self) -> KnowledgeSearcher:
        from app.knowledge.search import KnowledgeSearcher

        return KnowledgeSearcher(self.store, self.vectors, self._embeddings)

    @cached_property
    def runner(self) -> Runner:
        from app.knowledge.indexer import Indexer
        from app.knowledge.runner import Runner

        indexer = Indexer(self.store, lambda: self.private_roots, self._size_cap)
        return Runner(indexer, self._publish, self.vectors, self._embeddings, self._gate_for)

    def routes(self) -> Mapping[str, Handler]:
        from app.knowledge.citations import CitationFiles
        from app.knowledge.handlers import KnowledgeHandlers

        files = CitationFiles(self.store, self._size_cap)
        return KnowledgeHandlers(
            self.store, self.runner, self.searcher, self.vectors, self._embeddings, self.private_roots, files
        ).table()

    def turn_context(self, spec: TurnSpec) -> str | None:
        """A knowledge base @-selected for this message is searched before the model answers:
        its best chunks for the message, with their citations, join this turn's context as a
        user-role block of data (the files are not the app's instructions: issue 33.7)."""
        names = list(dict.fromkeys(m.name for m in spec.mentions if m.kind == "knowledge"))
        if not names:
            return None
        from app.knowledge.mentions import mentioned_context

        # A base the chat's agent does not allow reads as one that does not exist (issue 38).
        return mentioned_context(self.store, names, spec.user_text, spec.scope.knowledge_bases)

    def toolset(self, spec: TurnSpec) -> ToolBox | None:
        allowed = spec.scope.knowledge_bases
        if allowed.everything:
            return self._tools if self.store.has_bases() else None
        if not any(allowed.allows(n) for n in self.store.names()):
            return None
        return _Tools(KnowledgeSearchTool(self.store, lambda: self.searcher, allowed))

    def listed_tools(self) -> list[ListedTool]:
        return [ListedTool.of(KnowledgeSearchTool)]

    async def start(self) -> None:
        task = asyncio.get_running_loop().create_task(self._background(), name="knowledge")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _background(self) -> None:
        from app.knowledge.watch import KnowledgeWatcher

        # The watcher scans every base once it is armed: the start-up scan (it also resumes a
        # run cut short) without a gap in which a change could be missed.
        runner = self.runner
        watcher = KnowledgeWatcher(
            self.store, runner.indexer, runner.sink(), runner.embed_pending, after_scan=self._release_memory
        )
        await watcher.run()

    def _release_memory(self) -> None:
        """After the start-up scan: SQLite's spare cache pages, then the freed heap, go back."""
        from app.support.heap import trim_heap

        self.store.shrink_memory()
        trim_heap()

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
