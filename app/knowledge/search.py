"""What `knowledge.search` and `knowledge_search` run: BM25 over FTS5, fused with the nearest
vectors by reciprocal-rank fusion when an embeddings model is chosen and chunks have vectors.
If the embeddings provider fails, the answer is the lexical one (and the failure is logged):
a search never breaks because a model server is down."""

from __future__ import annotations

import logging

from app.knowledge.embedder import EmbeddingFailed, embed
from app.knowledge.models import Hit
from app.knowledge.prefs import EmbeddingsAccess
from app.knowledge.store import KnowledgeStore
from app.knowledge.vectors import VectorStore, fuse

_log = logging.getLogger(__name__)

CANDIDATES = 50  # from each list before fusion


class KnowledgeSearcher:
    def __init__(self, store: KnowledgeStore, vectors: VectorStore, access: EmbeddingsAccess | None) -> None:
        self._store = store
        self._vectors = vectors
        self._access = access

    def search(self, query: str, base: str | None, limit: int) -> list[Hit]:
        choice = self._access.choice() if self._access is not None else None
        if choice is None:
            return self._store.search(query, base, limit)
        lexical = self._store.search(query, base, max(limit, CANDIDATES))
        base_id = self._store.base_id(base) if base is not None else None
        try:
            [qvec] = embed(choice, [query])
        except EmbeddingFailed as exc:
            _log.warning("knowledge search without vectors: %s", exc)
            return lexical[:limit]
        nearest = self._vectors.nearest(choice.model, qvec, base_id, max(limit, CANDIDATES))
        fused = fuse([h.chunk_id for h in lexical], nearest, limit)
        known = {h.chunk_id: h for h in lexical}
        known.update(self._store.hits([c for c, _ in fused if c not in known]))
        return [known[c].model_copy(update={"score": round(s, 6)}) for c, s in fused if c in known]
