"""BM25 search over the catalog (`skill_search`, `skills.list?query`, `cashcode skills search`).

The index is rebuilt only when the set of (name, source, sha256) changes, so a search after an
unchanged refresh costs one dictionary lookup plus the BM25 scoring.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.search.bm25 import BM25Index
    from app.skills.catalog import CatalogEntry

# Catalog listings given to the model cut long descriptions here (the Agent Skills spec
# advises ≤ 1024 characters; real Skills exceed it, and the listing must stay compact).
LISTING_DESCRIPTION_CHARS = 300
TRUNCATION_MARKER = " […]"


@dataclass(frozen=True)
class SearchHit:
    entry: CatalogEntry
    score: float


def _fields(entry: CatalogEntry) -> Sequence[str]:
    m = entry.manifest
    # The name and display name count twice: a Skill named like the query should rank first.
    name_words = f"{m.name} {m.name.replace('-', ' ')}"
    return (
        name_words,
        name_words,
        m.display_name or "",
        m.description,
        " ".join(m.tags),
        " ".join(m.triggers),
        " ".join(entry.headings),
    )


class SkillSearchIndex:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[tuple[str, str, str], ...] | None = None
        self._index: BM25Index | None = None  # built by the first search (`ask` never needs it)
        self._by_name: dict[str, CatalogEntry] = {}
        self._entries: Sequence[CatalogEntry] | None = None

    def search(
        self,
        entries: Sequence[CatalogEntry],
        query: str,
        limit: int = 10,
        keep: Callable[[str], bool] | None = None,
    ) -> list[SearchHit]:
        """Active entries only (shadowed copies are never results), best first; with `keep`,
        only the names it accepts (the chat's agent's Skills)."""
        with self._lock:
            if entries is not self._entries:  # a new snapshot: compare its content
                active = [e for e in entries if e.active]
                key = tuple((e.name, e.source, e.sha256) for e in active)
                if key != self._key or self._index is None:
                    from app.search.bm25 import BM25Index

                    self._index = BM25Index((e.name, _fields(e)) for e in active)
                    self._key = key
                self._by_name = {e.name: e for e in active}
                self._entries = entries
            index, by_name = self._index, self._by_name
        assert index is not None  # built above with the first snapshot
        return [SearchHit(by_name[name], score) for name, score in index.search(query, limit, keep)]


def listing_description(text: str, limit: int = LISTING_DESCRIPTION_CHARS) -> str:
    """One line, cut with a visible marker when longer than `limit`."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - len(TRUNCATION_MARKER)].rstrip() + TRUNCATION_MARKER
