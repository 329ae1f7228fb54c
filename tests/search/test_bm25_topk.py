"""The pruned top-k of BM25Index.search (threshold algorithm) equals a brute-force ranking:
every document scored, best first, ties to the earlier document."""

from __future__ import annotations

import random

from app.search.bm25 import BM25Index

WORDS = ["read", "write", "file", "list", "issue", "zone", "time", "kato", "miru", "sune", "天气", "日历"]


def brute_force(index: BM25Index, query: str, limit: int) -> list[tuple[str, float]]:
    from app.search.bm25 import tokenize

    terms = [t for t in set(tokenize(query)) if t in index._tf]
    scores: dict[int, float] = {}
    for t in terms:
        for doc, weight in index._postings(t).items():
            scores[doc] = scores.get(doc, 0.0) + weight
    best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [(index._ids[d], s) for d, s in best]


def test_the_pruned_top_k_is_the_exact_top_k() -> None:
    rng = random.Random(5)
    weights = [1 / (r + 1) for r in range(len(WORDS))]  # a few words everywhere, most rare
    docs = [(f"doc{i}", [" ".join(rng.choices(WORDS, weights, k=rng.randint(1, 12)))]) for i in range(600)]
    docs += [(f"twin{i}", ["read write file"]) for i in range(30)]  # exact ties
    index = BM25Index(docs)
    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(300)] + ["read write file"]
    for query in queries:
        for limit in (1, 8, 50):
            got = index.search(query, limit)
            want = brute_force(index, query, limit)
            assert [d for d, _ in got] == [d for d, _ in want], query
            assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(got, want, strict=True))
    assert index.search("nothing-like-this", 8) == [] and index.search("read", 0) == []


def test_a_kept_share_gets_the_exact_top_k_of_that_share() -> None:
    """`keep` (an agent's Skills): the walk steps past the other documents and still returns
    exactly the best of the kept ones, for a large share, a small one and one not in the top."""
    rng = random.Random(9)
    weights = [1 / (r + 1) for r in range(len(WORDS))]
    docs = [(f"doc{i}", [" ".join(rng.choices(WORDS, weights, k=rng.randint(1, 12)))]) for i in range(600)]
    docs += [(f"twin{i}", ["read write file"]) for i in range(30)]
    index = BM25Index(docs)
    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(200)] + ["read write file"]
    shares = (
        {d for d, _ in docs[::4]},
        {d for d, _ in docs[::97]},
        {d for d, _ in docs if d.startswith("doc") and int(d[3:]) % 2 == 1},
    )
    for share in shares:
        for query in queries:
            for limit in (1, 8, 50):
                got = index.search(query, limit, keep=share.__contains__)
                want = [hit for hit in brute_force(index, query, len(docs)) if hit[0] in share][:limit]
                assert [d for d, _ in got] == [d for d, _ in want], (query, limit)
                assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(got, want, strict=True))
    assert index.search("read", 8, keep=lambda _: False) == []
