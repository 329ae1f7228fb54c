"""The `knowledge.*` route handlers (loaded on the first route call)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path

from app.contracts import replies as m
from app.contracts.capability import Handler
from app.contracts.errors import ApiFailure, say
from app.knowledge import api_models as k
from app.knowledge.citations import CitationFiles, Located, refused
from app.knowledge.indexer import RunResult
from app.knowledge.models import BaseStatus
from app.knowledge.prefs import EmbeddingsAccess, KnowledgePrefs
from app.knowledge.runner import Runner
from app.knowledge.search import KnowledgeSearcher
from app.knowledge.store import KnowledgeStore, check_name
from app.knowledge.vectors import VectorStore
from app.store.db import LOOP_WAIT_MS


class KnowledgeHandlers:
    def __init__(
        self,
        store: KnowledgeStore,
        runner: Runner,
        searcher: KnowledgeSearcher,
        vectors: VectorStore,
        access: EmbeddingsAccess | None,
        private_roots: tuple[Path, ...],
        files: CitationFiles,
    ) -> None:
        self._files = files
        self._store = store
        self._runner = runner
        self._searcher = searcher
        self._vectors = vectors
        self._access = access
        self._private = private_roots

    def table(self) -> Mapping[str, Handler]:
        return {
            "knowledge.list": self.list,
            "knowledge.create": self.create,
            "knowledge.rename": self.rename,
            "knowledge.delete": self.delete,
            "knowledge.add": self.add,
            "knowledge.add_root": self.add_root,
            "knowledge.remove_root": self.remove_root,
            "knowledge.reindex": self.reindex,
            "knowledge.search": self.search,
            "knowledge.skipped": self.skipped,
            "knowledge.resolve": self.resolve,
            "knowledge.locate": self.locate,
            "knowledge.read": self.read,
            "knowledge.settings.get": self.settings_get,
            "knowledge.settings.save": self.settings_save,
        }

    def _model(self) -> str:
        prefs = self._access.prefs() if self._access is not None else None
        return prefs.embeddings_model if prefs is not None and prefs.embeddings_provider else ""

    def _view(self, s: BaseStatus, embedded: dict[str, int] | None = None) -> k.KbView:
        p = self._runner.progress.get(s.name)
        return k.KbView(
            name=s.name,
            roots=list(s.roots),
            files=s.files,
            chunks=s.chunks,
            skipped=s.skipped,
            indexed_at=s.indexed_at,
            pending=s.pending,
            progress=k.KbProgressView(done=p.done, total=p.total, current=p.current) if p else None,
            embedded=(embedded or {}).get(s.name, 0),
        )

    async def _base_view(self, name: str) -> k.KbView:
        for s in await asyncio.to_thread(self._store.status):
            if s.name == name:
                return self._view(s)
        raise ApiFailure("not_found", say("kb.not_found", name=name))

    async def _run(self, name: str, *, force: bool = False) -> k.KbRun:
        # A route's run starts within the bound every route has (decision 183): busy → database_busy
        r: RunResult = await self._runner.run(name, force=force, start_wait_ms=LOOP_WAIT_MS)
        return k.KbRun(
            name=name, indexed=r.indexed, unchanged=r.unchanged, removed=r.removed, skipped=r.skipped
        )

    def _checked_path(self, raw: str) -> Path:
        if "\0" in raw or not raw.strip():
            raise ApiFailure("invalid", say("kb.path_required"))
        path = Path(raw).expanduser()
        if not path.is_absolute():
            raise ApiFailure("invalid", say("path.not_absolute", path=raw))
        real = Path(os.path.realpath(path))
        if not real.exists():
            raise ApiFailure("not_found", say("path.missing", path=raw))
        if not (real.is_dir() or real.is_file()):
            raise ApiFailure("invalid", say("kb.not_file_or_folder", path=raw))
        for own in self._private:
            if real == own or own in real.parents:
                raise ApiFailure("invalid", say("kb.private_folder", path=raw))
        return real

    async def list(self, req: m.Empty) -> k.KbList:
        model = await asyncio.to_thread(self._model)
        embedded = await asyncio.to_thread(self._vectors.counts, model) if model else {}
        statuses = await asyncio.to_thread(self._store.status)
        return k.KbList(
            bases=[self._view(s, embedded) for s in statuses],
            embeddings_model=model,
            embeddings_error=self._runner.embeddings_error if model else "",
        )

    async def create(self, req: k.KbName) -> k.KbView:
        name = check_name(req.name)
        await asyncio.to_thread(self._store.create, name)
        return await self._base_view(name)

    async def rename(self, req: k.KbRename) -> k.KbView:
        new = check_name(req.new_name)
        await asyncio.to_thread(self._store.rename, req.name, new)
        return await self._base_view(new)

    async def delete(self, req: k.KbName) -> m.Empty:
        await asyncio.to_thread(self._store.delete, req.name)
        return m.Empty()

    async def add(self, req: k.KbAdd) -> k.KbAddResult:
        path = self._checked_path(req.path)
        name = check_name(req.name if req.name is not None else (path.name or str(path)))
        await asyncio.to_thread(self._store.ensure, name)
        await asyncio.to_thread(self._store.add_root, name, str(path))
        run = await self._run(name)
        return k.KbAddResult(base=await self._base_view(name), run=run)

    async def add_root(self, req: k.KbRoot) -> k.KbAddResult:
        path = self._checked_path(req.path)
        await asyncio.to_thread(self._store.add_root, req.name, str(path))
        run = await self._run(req.name)
        return k.KbAddResult(base=await self._base_view(req.name), run=run)

    async def remove_root(self, req: k.KbRoot) -> k.KbAddResult:
        await asyncio.to_thread(self._store.remove_root, req.name, req.path)
        run = await self._run(req.name)
        return k.KbAddResult(base=await self._base_view(req.name), run=run)

    async def reindex(self, req: k.KbReindex) -> k.KbRuns:
        if req.name is not None:
            await asyncio.to_thread(self._store.base_id, req.name)  # not_found before any work
            names = [req.name]
        else:
            names = await asyncio.to_thread(self._store.names)
        return k.KbRuns(runs=[await self._run(n, force=True) for n in names])

    async def search(self, req: k.KbSearch) -> k.KbHits:
        hits = await asyncio.to_thread(self._searcher.search, req.query, req.kb, req.limit)
        return k.KbHits(
            hits=[
                k.KbHit(
                    base=h.base,
                    path=h.path,
                    start_line=h.start_line,
                    end_line=h.end_line,
                    heading=h.heading,
                    score=h.score,
                    text=h.text,
                    citation=h.citation,
                )
                for h in hits
            ]
        )

    async def skipped(self, req: k.KbName) -> k.KbSkippedList:
        items = await asyncio.to_thread(self._store.skipped, req.name)
        return k.KbSkippedList(items=[k.KbSkippedItem(path=s.path, reason=s.reason) for s in items])

    async def resolve(self, req: k.KbResolve) -> k.KbResolved:
        """Which cited paths are files of a knowledge base (the UI links only those)."""

        def run() -> list[Located | None]:
            return [self._files.resolve(p) for p in req.paths]

        return k.KbResolved(files=[_located(f) if f else None for f in await asyncio.to_thread(run)])

    async def locate(self, req: k.KbLocate) -> k.KbLocated:
        found = await asyncio.to_thread(self._files.locate, req.path)
        if found is None:
            raise refused(req.path)
        return _located(found)

    async def read(self, req: k.KbRead) -> k.KbExcerpt:
        e = await asyncio.to_thread(self._files.read, req.path, req.start_line, req.end_line)
        return k.KbExcerpt(
            file=_located(e.located),
            start_line=e.start_line,
            end_line=e.end_line,
            first_line=e.first_line,
            lines=list(e.lines),
            total_lines=e.total_lines,
        )

    async def settings_get(self, req: m.Empty) -> k.KbSettings:
        if self._access is None:
            return k.KbSettings(embeddings_provider="", embeddings_model="")
        prefs = await asyncio.to_thread(self._access.prefs)
        return k.KbSettings(
            embeddings_provider=prefs.embeddings_provider, embeddings_model=prefs.embeddings_model
        )

    async def settings_save(self, req: k.KbSettings) -> k.KbSettings:
        """Choose (or turn off) embeddings; chunks are then embedded in the background."""
        access = self._access
        if access is None:
            raise ApiFailure("unsupported", say("kb.no_embeddings"))
        provider, model = req.embeddings_provider.strip(), req.embeddings_model.strip()
        if bool(provider) != bool(model):
            raise ApiFailure("invalid", say("kb.embeddings_pair"))
        if provider and not await asyncio.to_thread(access.provider_exists, provider):
            raise ApiFailure(
                "not_found", say("kb.unknown_provider", id=provider)
            )
        prefs = KnowledgePrefs(embeddings_provider=provider, embeddings_model=model)
        await asyncio.to_thread(access.save, prefs)
        if model:
            await self._runner.embed_pending()
        return k.KbSettings(embeddings_provider=provider, embeddings_model=model)


def _located(f: Located) -> k.KbLocated:
    return k.KbLocated(base=f.base, path=f.path, folder=f.folder)
