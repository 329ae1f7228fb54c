"""A small BM25 index and the tokeniser shared by `tool_search` (MCP) and `skill_search`.

Tokens: lower-cased words split at camelCase and snake/kebab boundaries (the whole word is
kept too, so `say_hello` matches both "say_hello" and "hello"), digits as their own runs, and
CJK text as overlapping bigrams (Chinese has no spaces; single characters would match almost
everything). BM25 with k1 = 1.5 and b = 0.75 (SPEC S6.4).
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

K1 = 1.5
B = 0.75

# CJK unified ideographs (+ext A), kana, hangul: scripts written without spaces.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CHUNK = re.compile(rf"[{_CJK}]+|[A-Za-z0-9_\-]+|[^\W_]+", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")
# camelCase / PascalCase / acronyms / digit runs: "getHTTPResponse2" -> get HTTP Response 2
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPARATORS = re.compile(r"[_\-]+")


def tokenize(text: str) -> list[str]:
    """Split `text` into lower-case search tokens (see module docstring)."""
    out: list[str] = []
    for chunk in _CHUNK.findall(text):
        out.extend(_chunk_tokens(chunk))
    return out


@lru_cache(maxsize=65_536)  # tool catalogs repeat the same words thousands of times
def _chunk_tokens(chunk: str) -> tuple[str, ...]:
    if _IS_CJK.match(chunk):
        return tuple(_bigrams(chunk))
    parts = [p for p in _SEPARATORS.split(chunk) if p]
    pieces = [w.lower() for part in parts for w in (_CAMEL.findall(part) or [part])]
    whole = chunk.lower().strip("_-")
    if whole and (len(pieces) > 1 or (pieces and whole != pieces[0])):
        pieces.append(whole)
    return tuple(pieces)


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


class BM25Index:
    """Built once from `(id, fields)` documents; `search` ranks ids for a free-text query.

    Fields are concatenated text (callers decide what goes in, e.g. name, description and
    parameter names). An empty query or no match returns []. Each posting stores its final
    BM25 weight (idf and length normalisation do not depend on the query), so a query only
    adds numbers.
    """

    def __init__(self, documents: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._ids: list[str] = []
        counts: list[Counter[str]] = []
        for doc_id, fields in documents:
            self._ids.append(doc_id)
            counts.append(Counter(t for f in fields for t in tokenize(f)))
        n = len(counts)
        lengths = [sum(c.values()) for c in counts]
        avg = (sum(lengths) / n) if n else 1.0
        df: Counter[str] = Counter()
        for c in counts:
            df.update(c.keys())
        idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        postings: dict[str, dict[int, float]] = {}
        for index, (c, length) in enumerate(zip(counts, lengths, strict=True)):
            norm = K1 * (1 - B + B * length / (avg or 1.0))
            for term, freq in c.items():
                postings.setdefault(term, {})[index] = idf[term] * freq * (K1 + 1) / (freq + norm)
        self._postings = postings

    def __len__(self) -> int:
        return len(self._ids)

    def search(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        lists = [p for p in (self._postings.get(t) for t in set(tokenize(query))) if p]
        if not lists or limit <= 0:
            return []
        lists.sort(key=len, reverse=True)
        scores = dict(lists[0])
        for more in lists[1:]:
            for index, weight in more.items():
                scores[index] = scores.get(index, 0.0) + weight
        best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
        return [(self._ids[i], score) for i, score in best]
