"""Split a search snippet into plain and matched segments.

The UI renders segments as text nodes and <mark> elements, so a snippet is never parsed as
HTML; segment boundaries are computed here, on code points, not sent as offsets that a
UTF-16 string in the browser would count differently.
"""

from __future__ import annotations

from collections.abc import Sequence


def match_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Merged [start, end) ranges of every case-insensitive occurrence of any term."""
    lowered = text.lower()
    spans: list[tuple[int, int]] = []
    for term in {t.lower() for t in terms if t}:
        start = lowered.find(term)
        while start >= 0:
            spans.append((start, start + len(term)))
            start = lowered.find(term, start + len(term))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def segments(text: str, terms: Sequence[str]) -> list[tuple[str, bool]]:
    """`text` as (piece, is_match) pairs that concatenate back to `text`."""
    out: list[tuple[str, bool]] = []
    at = 0
    for start, end in match_spans(text, terms):
        if start > at:
            out.append((text[at:start], False))
        out.append((text[start:end], True))
        at = end
    if at < len(text):
        out.append((text[at:], False))
    return out
