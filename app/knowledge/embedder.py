"""Embeddings over HTTP from a configured provider: OpenAI-compatible `/embeddings` (under the
provider's base URL, which ends in `/v1`) or Ollama's `/api/embed`. Blocking: called from the
indexer's worker thread and from searches run in threads."""

from __future__ import annotations

from collections.abc import Sequence

from app.contracts.provider import ProviderKind
from app.knowledge.prefs import EmbeddingsChoice

TIMEOUT_S = 60.0


class EmbeddingFailed(Exception):
    """The provider did not return one vector per text (message safe to show: no key)."""


def embed(choice: EmbeddingsChoice, texts: Sequence[str]) -> list[list[float]]:
    import httpx2  # lazy: only with embeddings on

    p = choice.provider
    base = p.base_url.rstrip("/")
    if p.kind == ProviderKind.OLLAMA:
        url = base.removesuffix("/v1") + "/api/embed"
    else:
        url = base + "/embeddings"
    headers = {"Authorization": f"Bearer {p.api_key}"} if p.api_key else {}
    body = {"model": choice.model, "input": list(texts)}
    try:
        with httpx2.Client(trust_env=False, timeout=TIMEOUT_S) as client:
            response = client.post(url, json=body, headers=headers)
    except httpx2.HTTPError as exc:
        raise EmbeddingFailed(f"cannot reach {p.name or p.id} for embeddings ({type(exc).__name__})") from exc
    if response.status_code != 200:
        raise EmbeddingFailed(f"the embeddings request failed with HTTP {response.status_code}")
    try:
        data = response.json()
        if p.kind == ProviderKind.OLLAMA:
            vectors = data["embeddings"]
        else:
            vectors = [item["embedding"] for item in sorted(data["data"], key=lambda d: d["index"])]
        out = [[float(x) for x in v] for v in vectors]
    except (ValueError, KeyError, TypeError) as exc:
        raise EmbeddingFailed("the provider's embeddings answer was not understood") from exc
    if len(out) != len(texts) or len({len(v) for v in out}) > 1:
        raise EmbeddingFailed("the provider returned a different number of vectors than texts")
    return out
