"""A small BM25 index and the tokeniser shared by `tool_search` (MCP) and `skill_search`.

Text is NFKC-normalised first (full-width `ｆｉｌｅ` is `file`). Tokens: lower-cased words split
at camelCase and snake/kebab boundaries (the whole word is kept too, so `say_hello` matches both
"say_hello" and "hello"), digits as their own runs, and CJK text as overlapping bigrams (Chinese
has no spaces). Tokens of one character are dropped, a lone CJK character included: "a", "x",
"2" or "中" would match almost everything. Latin words of three letters or more are reduced to
their English stem (Snowball, `snowballstemmer`): "fields", "filling" and "forms" meet "field",
"fill" and "form". The whole
identifier of a split name is kept as written. BM25 with k1 = 1.5 and b = 0.75 (SPEC S6.4).
"""

from __future__ import annotations

import heapq
import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import chain, islice, repeat
from operator import neg
from typing import Any

K1 = 1.5
B = 0.75

# CJK unified ideographs (+ext A), kana, hangul: scripts written without spaces.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CHUNK = re.compile(rf"[{_CJK}]+|[A-Za-z0-9_\-]+|[^\W_]+", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")
# camelCase / PascalCase / acronyms / digit runs: "getHTTPResponse2" -> get HTTP Response 2
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPARATORS = re.compile(r"[_\-]+")
_STEMMABLE = re.compile(r"[a-z]{3,}")
# Every rule of the English Snowball algorithm acts on one of these endings first, so a word
# ending otherwise is its own stem; checking saves the stemmer's ~50-100 µs per such word (a
# 10,000-tool catalog has thousands of made-up words). tests/search checks it against the stemmer.
_CHANGEABLE_ENDINGS = (
    "s", "y", "e", "ed", "ng", "li", "ci", "gi", "ti", "al", "ul", "ll", "er", "or", "ic", "nt", "sm", "on"
)  # fmt: skip


def tokenize(text: str) -> list[str]:
    """Split `text` into lower-case search tokens (see module docstring)."""
    # One C-level pass over the cached word splits (knowledge bases tokenise whole files).
    return list(chain.from_iterable(map(_chunk_tokens, _CHUNK.findall(_normal(text)))))


def token_text(text: str) -> str:
    """`" ".join(tokenize(text))`, in one join over each word's cached token string (the
    knowledge index stores exactly this; half the time of building the list first)."""
    return " ".join(filter(None, map(_chunk_text, _CHUNK.findall(_normal(text)))))


def _normal(text: str) -> str:
    """NFKC (full-width Latin and digits, ligatures, compatibility forms); ASCII is already."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=65_536)
def _chunk_text(chunk: str) -> str:
    return " ".join(_chunk_tokens(chunk))


@lru_cache(maxsize=65_536)  # tool catalogs repeat the same words thousands of times
def _chunk_tokens(chunk: str) -> tuple[str, ...]:
    if _IS_CJK.match(chunk):
        return tuple(_bigrams(chunk))
    if "_" not in chunk and "-" not in chunk:
        pieces = list(_word_tokens(chunk))
    else:  # names like verb_noun_12 are unique, their parts are not: split, then cached parts
        pieces = [w for part in _SEPARATORS.split(chunk) if part for w in _word_tokens(part)]
    whole = chunk.lower().strip("_-")
    # A split name also counts as the whole identifier (as written: "forms_fill" is a name,
    # not a phrase); a single word is only its stem.
    if whole and (len(pieces) > 1 or (pieces and stem(whole) != pieces[0])):
        pieces.append(whole)
    return tuple(p for p in pieces if len(p) > 1)


@lru_cache(maxsize=65_536)
def _word_tokens(part: str) -> tuple[str, ...]:
    """One separator-free part, split at camelCase and digit runs, lower-cased and stemmed."""
    return tuple(stem(w.lower()) for w in (_CAMEL.findall(part) or [part]))


class _Stemmer:
    """The English Snowball stemmer, built on first use (its package imports every language,
    ~20 ms, which `cashcode ask` never needs). A stemmer object keeps state while it works, so
    calls are serialised; `stem` caches results, so the lock is taken once per distinct word."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._impl: Any = None

    def __call__(self, word: str) -> str:
        with self._lock:
            if self._impl is None:
                import snowballstemmer

                self._impl = snowballstemmer.stemmer("english")
            return str(self._impl.stemWord(word))


_STEMMER = _Stemmer()


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The English stem of a lower-case Latin word of 3+ letters; other tokens as they are."""
    if not word.endswith(_CHANGEABLE_ENDINGS) or not _STEMMABLE.fullmatch(word):
        return word
    return _STEMMER(word)


def _bigrams(run: str) -> list[str]:
    """A lone character gives nothing (it would match every text that has it)."""
    return [run[i : i + 2] for i in range(len(run) - 1)]


class BM25Index:
    """Built once from `(id, fields)` documents; `search` ranks ids for a free-text query.

    Fields are concatenated text (callers decide what goes in, e.g. name, description and
    parameter names). An empty query or no match returns []. Each posting stores its final
    BM25 weight (idf and length normalisation do not depend on the query), so a query only
    adds numbers (weights are computed once per term, on its first query). Ties rank the
    earlier document first.

    Speed (bench/README.md has the profile): a document is tokenised in one regex pass with
    cached word splits; a query reads each term's postings best-first and stops as soon as no
    unseen document can still enter the top k (Fagin's threshold algorithm), so common words
    cost little. A term's best-first order is sorted on its first use and kept.
    """

    def __init__(self, documents: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._ids: list[str] = []
        lengths: list[int] = []
        tf: dict[str, dict[int, int]] = {}  # term -> {document: term frequency}
        for index, (doc_id, fields) in enumerate(documents):
            self._ids.append(doc_id)
            # one regex pass per document (tokens never span the joining space)
            counts = Counter(chain.from_iterable(map(_chunk_tokens, _CHUNK.findall(" ".join(fields)))))
            lengths.append(counts.total())
            for term, freq in counts.items():
                found = tf.get(term)
                if found is None:
                    tf[term] = {index: freq}
                else:
                    found[index] = freq
        avg = (sum(lengths) / len(lengths)) if lengths else 1.0
        self._norms = [K1 * (1 - B + B * length / (avg or 1.0)) for length in lengths]
        self._tf = tf
        self._weights: dict[str, dict[int, float]] = {}  # term -> {document: BM25 weight}
        self._ranked: dict[str, list[tuple[float, int]]] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def _postings(self, term: str) -> dict[int, float]:
        """The term's final BM25 weight per document, computed on the term's first query (a
        catalog has thousands of terms; a session queries a few dozen)."""
        weights = self._weights.get(term)
        if weights is None:
            tfs, n, norms = self._tf[term], len(self._ids), self._norms
            idf = math.log(1 + (n - len(tfs) + 0.5) / (len(tfs) + 0.5))
            weights = {d: idf * (f * (K1 + 1) / (f + norms[d])) for d, f in tfs.items()}
            self._weights[term] = weights
        return weights

    def _best_first(self, term: str) -> list[tuple[float, int]]:
        """(weight, -doc) by weight, then the earlier document first."""
        ranked = self._ranked.get(term)
        if ranked is None:
            postings = self._postings(term)
            ranked = sorted(zip(postings.values(), map(neg, postings), strict=True), reverse=True)
            self._ranked[term] = ranked
        return ranked

    def search(
        self, query: str, limit: int = 10, keep: Callable[[str], bool] | None = None
    ) -> list[tuple[str, float]]:
        """Best first. `keep`: only documents whose id it accepts are results (an agent's share
        of a catalog); the walk steps past the others, so a small share costs one deeper walk,
        not a second search asking for more."""
        terms = [t for t in set(tokenize(query)) if t in self._tf]
        if not terms or limit <= 0:
            return []
        lists = [self._best_first(t) for t in terms]
        if len(lists) == 1:
            ids = self._ids
            ranked = lists[0] if keep is None else (i for i in lists[0] if keep(ids[-i[1]]))
            return [(ids[-minus], weight) for weight, minus in islice(ranked, limit)]
        return [(self._ids[-minus], score) for score, minus in self._top(terms, lists, limit, keep)]

    def _top(
        self,
        terms: list[str],
        lists: list[list[tuple[float, int]]],
        limit: int,
        keep: Callable[[str], bool] | None = None,
    ) -> list[tuple[float, int]]:
        """Threshold algorithm: walk all lists one depth at a time; a document met for the first
        time gets its full score by lookups. Stop when the k-th best beats the sum of the
        weights at the current depth (no unseen document can score more; a document `keep`
        refuses is never a result, so the bound holds for the kept ones alike)."""
        postings = [self._postings(t) for t in terms]
        heap: list[tuple[float, int]] = []  # the best `limit` as (score, -doc), worst on top
        seen: set[int] = set()
        for depth in range(max(map(len, lists))):
            frontier = 0.0
            for ranked in lists:
                if depth >= len(ranked):
                    continue
                weight, minus = ranked[depth]
                frontier += weight
                if minus in seen:
                    continue
                seen.add(minus)
                if keep is not None and not keep(self._ids[-minus]):
                    continue
                item = (sum(map(dict.get, postings, repeat(-minus), repeat(0.0))), minus)
                if len(heap) < limit:
                    heapq.heappush(heap, item)
                elif item > heap[0]:
                    heapq.heapreplace(heap, item)
            if len(heap) == limit and heap[0][0] > frontier:
                break
        return sorted(heap, reverse=True)
