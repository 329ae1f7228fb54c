"""Query helpers for full-text search over messages (SPEC S8)."""

from __future__ import annotations

from collections.abc import Sequence

TRIGRAM = 3  # the trigram tokenizer cannot match terms shorter than this
SNIPPET_CHARS = 160


def fts_query(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression requiring every term as a substring, or None when a term is
    too short for the trigram index (the caller then scans with LIKE)."""
    if any(len(t) < TRIGRAM for t in terms):
        return None
    # Each term is a quoted string, so FTS syntax in user input (AND, *, :) is inert.
    return " AND ".join('"' + t.replace('"', '""') + '"' for t in terms)


def like_patterns(terms: Sequence[str]) -> list[str]:
    r"""`%term%` patterns with LIKE wildcards escaped (use with ESCAPE '\')."""
    escaped = (t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for t in terms)
    return [f"%{t}%" for t in escaped]


def snippet(text: str, terms: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """About `width` characters of `text` around the first matching term, on one line."""
    flat = " ".join(text.split())
    lowered = flat.lower()
    found = [i for i in (lowered.find(t.lower()) for t in terms) if i >= 0]
    start = max(0, min(found, default=0) - width // 3)
    end = min(len(flat), start + width)
    start = max(0, end - width)
    return ("…" if start > 0 else "") + flat[start:end] + ("…" if end < len(flat) else "")
