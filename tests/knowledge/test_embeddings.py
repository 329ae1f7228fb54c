"""Optional embeddings through the shipped fake LLM (`/v1/embeddings`, `/api/embed`, with
deterministic vectors): chunks are embedded, and the hybrid ranking is exactly the
reciprocal-rank fusion of the BM25 ranking and the vector ranking the test computes itself."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from app.knowledge.vectors import RRF_K
from app.testing.fake_llm.embeddings import fake_embedding
from tests.api.conftest import AppMaker, add_provider, err, ok

DOCS = {
    "a.txt": "apple " * 9 + "zebra",
    "b.txt": "banana apple",
    "c.txt": "apple pie recipe with cinnamon sugar butter flour and a long list of other things",
    "d.txt": "banana banana split",
    "e.txt": "nothing relevant here at all",
}
QUERY = "apple banana"


def _cos(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


async def _paths(app: Any, root: Path) -> list[str]:
    hits = (await ok(app, "knowledge.search", {"query": QUERY, "limit": 50}))["hits"]
    return [Path(h["path"]).name for h in hits]


async def _check_fusion(app: Any, root: Path, pid: str) -> None:
    lexical = await _paths(app, root)
    assert set(lexical) == {"a.txt", "b.txt", "c.txt", "d.txt"}
    await ok(
        app,
        "knowledge.settings.save",
        {"embeddings_provider": pid, "embeddings_model": "fake-embed"},
    )
    listed = await ok(app, "knowledge.list")
    assert listed["embeddings_model"] == "fake-embed" and listed["embeddings_error"] == ""
    assert [(b["embedded"], b["chunks"]) for b in listed["bases"]] == [(5, 5)]

    q = fake_embedding(QUERY)
    names = sorted(DOCS)  # indexed in name order: chunk ids follow it
    vector = sorted(names, key=lambda n: (-_cos(q, fake_embedding(DOCS[n])), names.index(n)))
    scores: dict[str, float] = {}
    for ranked in (lexical, vector):
        for rank, name in enumerate(ranked, start=1):
            scores[name] = scores.get(name, 0.0) + 1 / (RRF_K + rank)
    expected = sorted(scores, key=lambda n: (-scores[n], lexical.index(n) if n in lexical else len(lexical)))
    hybrid = await _paths(app, root)
    assert hybrid == expected
    assert hybrid != lexical  # the vectors changed the ranking
    assert "e.txt" in hybrid  # a chunk with no query word can still come from the vector side


async def test_openai_compatible_embeddings_fuse_with_bm25(
    make_app: AppMaker, fake_llm: Any, tmp_path: Path
) -> None:
    root = tmp_path / "fruit"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text + "\n", encoding="utf-8")
    app, _rec = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    await ok(app, "knowledge.add", {"path": str(root)})
    await _check_fusion(app, root, pid)
    embeds = [r for r in fake_llm.requests if r.path == "/v1/embeddings"]
    assert embeds and embeds[0].body["model"] == "fake-embed" and len(embeds[0].body["input"]) == 5

    # A file saved later gets its vector with the next run; turning embeddings off is lexical again.
    (root / "f.txt").write_text("apple banana\n", encoding="utf-8")
    await ok(app, "knowledge.add", {"path": str(root)})
    assert (await ok(app, "knowledge.list"))["bases"][0]["embedded"] == 6
    await ok(app, "knowledge.settings.save", {"embeddings_provider": "", "embeddings_model": ""})
    assert "e.txt" not in await _paths(app, root)


async def test_ollama_embeddings_and_bad_settings(make_app: AppMaker, fake_llm: Any, tmp_path: Path) -> None:
    root = tmp_path / "fruit"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text + "\n", encoding="utf-8")
    app, _rec = await make_app()
    pid = await add_provider(app, fake_llm, "ollama")
    await ok(app, "knowledge.add", {"path": str(root)})
    bad = await err(app, "knowledge.settings.save", {"embeddings_provider": "nope", "embeddings_model": "m"})
    assert bad["code"] == "not_found"
    half = await err(app, "knowledge.settings.save", {"embeddings_provider": pid, "embeddings_model": ""})
    assert half["code"] == "invalid"
    assert (await ok(app, "knowledge.settings.get"))["embeddings_model"] == ""
    await _check_fusion(app, root, pid)
    assert any(r.path == "/api/embed" for r in fake_llm.requests)
