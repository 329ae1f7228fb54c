"""Deterministic embeddings for tests: a hashed bag of words (each lower-cased word adds 1 to
one of `DIM` dimensions chosen by its SHA-256), normalised to length 1. Texts sharing words
point the same way, so a test can predict vector rankings without a model."""

from __future__ import annotations

import hashlib
import math
import re

DIM = 64
_WORD = re.compile(r"\w+")


def fake_embedding(text: str, dim: int = DIM) -> list[float]:
    vec = [0.0] * dim
    for word in _WORD.findall(text.lower()):
        vec[int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def inputs(body: object) -> list[str] | None:
    """The texts of an embeddings request (`input`: a string or a list of strings)."""
    raw = body.get("input") if isinstance(body, dict) else None
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list) and all(isinstance(t, str) for t in raw):
        return list(raw)
    return None
