"""Chunk vectors (`kb_vectors`) and hybrid ranking.

Vectors are float32 BLOBs normalised to length 1, so cosine similarity is a dot product. The
vector side is a brute-force scan over the model's vectors (no extension to load; see
docs/decisions.md). Hybrid ranking is reciprocal-rank fusion: score = Σ 1 / (RRF_K + rank) over
the BM25 list and the vector list (ranks from 1), ties to the better BM25 rank.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Sequence
from operator import mul

from app.store.db import Database

RRF_K = 60
BATCH = 32


def pack(vec: Sequence[float]) -> bytes:
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return array("f", (v / norm for v in vec)).tobytes()


def unpack(blob: bytes) -> array[float]:
    out = array("f")
    out.frombytes(blob)
    return out


def fuse(lexical: Sequence[int], vector: Sequence[int], limit: int) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion of two ranked id lists."""
    scores: dict[int, float] = {}
    for ranked in (lexical, vector):
        for rank, chunk_id in enumerate(ranked, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    order = {cid: i for i, cid in enumerate(lexical)}
    ranked_ids = sorted(scores, key=lambda c: (-scores[c], order.get(c, len(order))))
    return [(c, scores[c]) for c in ranked_ids[:limit]]


class VectorStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def missing(self, model: str, limit: int = BATCH) -> list[tuple[int, str]]:
        """Chunks without a vector of `model` (heading trail and text, as embedded)."""
        rows = self._db.query(
            "SELECT c.id, c.heading, c.text FROM kb_chunks c"
            " LEFT JOIN kb_vectors v ON v.chunk_id = c.id AND v.model = ?"
            " WHERE v.chunk_id IS NULL ORDER BY c.id LIMIT ?",
            (model, limit),
        )
        return [(int(r[0]), f"{r[1]}\n{r[2]}" if r[1] else str(r[2])) for r in rows]

    def put(self, model: str, items: Sequence[tuple[int, Sequence[float]]]) -> None:
        with self._db.transaction() as conn:
            for chunk_id, vec in items:
                # A chunk deleted meanwhile (re-indexed file) is skipped, not re-created.
                conn.execute(
                    "INSERT OR REPLACE INTO kb_vectors (chunk_id, model, vec)"
                    " SELECT id, ?, ? FROM kb_chunks WHERE id = ?",
                    (model, pack(vec), chunk_id),
                )

    def counts(self, model: str) -> dict[str, int]:
        rows = self._db.query(
            "SELECT b.name, count(v.chunk_id) FROM kb_bases b"
            " LEFT JOIN kb_files f ON f.base_id = b.id LEFT JOIN kb_chunks c ON c.file_id = f.id"
            " LEFT JOIN kb_vectors v ON v.chunk_id = c.id AND v.model = ? GROUP BY b.id",
            (model,),
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def nearest(self, model: str, query: Sequence[float], base_id: int | None, limit: int) -> list[int]:
        q = unpack(pack(query))
        where, params = "", [model]
        if base_id is not None:
            where = " AND f.base_id = ?"
            params.append(str(base_id))
        rows = self._db.query(
            "SELECT v.chunk_id, v.vec FROM kb_vectors v JOIN kb_chunks c ON c.id = v.chunk_id"
            f" JOIN kb_files f ON f.id = c.file_id WHERE v.model = ?{where}",
            params,
        )
        # map(mul) runs the multiply loop in C: several times a generator over zip.
        scored = ((sum(map(mul, q, unpack(r[1]))), -int(r[0])) for r in rows)
        return [-minus for _, minus in heapq.nlargest(limit, scored)]
