"""A small BM25 index and the tokeniser shared by `tool_search` (MCP) and `skill_search`.

Tokens: lower-cased words split at camelCase and snake/kebab boundaries (the whole word is
kept too, so `say_hello` matches both "say_hello" and "hello"), digits as their own runs, and
CJK text as overlapping bigrams (Chinese has no spaces; single characters would match almost
everything). BM25 with k1 = 1.5 and b = 0.75 (SPEC S6.4).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

K1 = 1.5
B = 0.75

# CJK unified ideographs (+ext A), kana, hangul: scripts written without spaces.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CHUNK = re.compile(rf"[{_CJK}]+|[A-Za-z0-9_\-]+|[^\W_]+", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")
# camelCase / PascalCase / acronyms / digit runs: "getHTTPResponse2" -> get HTTP Response 2
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def tokenize(text: str) -> list[str]:
    """Split `text` into lower-case search tokens (see module docstring)."""
    out: list[str] = []
    for chunk in _CHUNK.findall(text):
        if _IS_CJK.match(chunk):
            out.extend(_bigrams(chunk))
            continue
        parts = [p for p in re.split(r"[_\-]+", chunk) if p]
        pieces = [w.lower() for part in parts for w in (_CAMEL.findall(part) or [part])]
        out.extend(pieces)
        whole = chunk.lower().strip("_-")
        if whole and (len(pieces) > 1 or (pieces and whole != pieces[0])):
            out.append(whole)
    return out


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


@dataclass(frozen=True)
class _Doc:
    id: str
    terms: Counter[str]
    length: int


class BM25Index:
    """Built once from `(id, fields)` documents; `search` ranks ids for a free-text query.

    Fields are concatenated text (callers decide what goes in, e.g. name, description and
    parameter names). An empty query or no match returns [].
    """

    def __init__(self, documents: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._docs: list[_Doc] = []
        postings: dict[str, list[tuple[int, int]]] = {}
        for doc_id, fields in documents:
            terms = Counter(t for f in fields for t in tokenize(f))
            index = len(self._docs)
            self._docs.append(_Doc(doc_id, terms, sum(terms.values())))
            for term, freq in terms.items():
                postings.setdefault(term, []).append((index, freq))
        self._postings = postings
        total = sum(d.length for d in self._docs)
        self._avg = total / len(self._docs) if self._docs else 0.0
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in postings.items()}

    def __len__(self) -> int:
        return len(self._docs)

    def search(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        scores: dict[int, float] = {}
        avg = self._avg or 1.0
        for term in set(tokenize(query)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for index, freq in self._postings[term]:
                norm = K1 * (1 - B + B * self._docs[index].length / avg)
                scores[index] = scores.get(index, 0.0) + idf * freq * (K1 + 1) / (freq + norm)
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[: max(0, limit)]
        return [(self._docs[i].id, score) for i, score in best]
