"""A small BM25 index shared by `skill_search` and MCP's `tool_search`.

Tokeniser: lowercase words of letters/digits, split at camelCase and snake_case/kebab-case
boundaries (the whole word is kept too, so `skill_search` finds `skill_search`), and runs of
CJK characters become overlapping bigrams (Chinese has no spaces; a single CJK character
stays a one-character token). Scoring is Okapi BM25 (k1 1.5, b 0.75) over the concatenated
fields of a document; a field may be repeated by the caller to weigh it more.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

K1 = 1.5
B = 0.75

_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD = re.compile(rf"[{_CJK_CHARS}]+|[^\W_{_CJK_CHARS}]+(?:_[^\W_{_CJK_CHARS}]+)*")
_CJK = re.compile(rf"[{_CJK_CHARS}]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def tokenize(text: str) -> list[str]:
    """Search tokens of `text` (see the module docstring)."""
    tokens: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        if _CJK.match(word):
            tokens.extend(_bigrams(word))
            continue
        parts = [p for piece in word.split("_") for p in _CAMEL.findall(piece)]
        lowered = word.lower()
        tokens.append(lowered)
        if len(parts) > 1:
            tokens.extend(p.lower() for p in parts if p.lower() != lowered)
    return tokens


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


class BM25Index:
    """Built once from `(id, fields)` documents; `search` is read-only and thread-safe."""

    def __init__(self, documents: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._ids: list[str] = []
        self._lengths: list[int] = []
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for doc_id, fields in documents:
            counts = Counter(tok for field in fields for tok in tokenize(field))
            index = len(self._ids)
            self._ids.append(doc_id)
            self._lengths.append(sum(counts.values()))
            for token, freq in counts.items():
                self._postings.setdefault(token, []).append((index, freq))
        total = len(self._ids)
        self._avg = (sum(self._lengths) / total) if total else 0.0
        avg = self._avg or 1.0
        # Per-document length normalisation, computed once (the hot loop only multiplies).
        self._norm = [K1 * (1 - B + B * length / avg) for length in self._lengths]
        self._idf = {
            token: math.log(1 + (total - len(posts) + 0.5) / (len(posts) + 0.5))
            for token, posts in self._postings.items()
        }

    def __len__(self) -> int:
        return len(self._ids)

    def search(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        """Best first; ties keep the order the documents were added in. Empty query → []."""
        scores: dict[int, float] = {}
        norm = self._norm
        for token in set(tokenize(query)):
            posts = self._postings.get(token)
            if not posts:
                continue
            weight = self._idf[token] * (K1 + 1)
            get = scores.get
            for index, freq in posts:
                scores[index] = get(index, 0.0) + weight * freq / (freq + norm[index])
        best = heapq.nsmallest(max(0, limit), scores.items(), key=lambda item: (-item[1], item[0]))
        return [(self._ids[i], score) for i, score in best]
