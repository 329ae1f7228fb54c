"""Request bodies as JSON bytes with large base64 payloads spliced in, not re-encoded.

A 10 MB image is ~13.3 MB of base64. Handing it to the SDK as a string costs a decode to
`str`, a data-URL copy, a character-by-character JSON escape scan and an encode back to bytes
(~+330 ms before the request under load, issue 11). Base64 text and a `data:<mime>;base64,`
prefix never need JSON escaping, so the body is serialised with a short placeholder for each
payload and the payload bytes are joined in at its place: one copy, no scan.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# What a prefix may contain so that it needs no JSON escaping (e.g. "data:image/png;base64,").
_SAFE_PREFIX = re.compile(r"[A-Za-z0-9+/=:;,._-]*")


@dataclass(frozen=True)
class Base64Blob:
    """A JSON string value `prefix + data` whose `data` is base64 text as ASCII bytes."""

    prefix: str
    data: bytes

    def __post_init__(self) -> None:
        if not _SAFE_PREFIX.fullmatch(self.prefix):
            raise ValueError(f"unsafe prefix for a spliced JSON string: {self.prefix[:40]!r}")

    def text(self) -> str:
        return self.prefix + self.data.decode("ascii")


def has_blobs(value: Any) -> bool:
    if isinstance(value, Base64Blob):
        return True
    if isinstance(value, Mapping):
        return any(has_blobs(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(has_blobs(v) for v in value)
    return False


def plain(value: Any) -> Any:
    """The same structure with every blob as an ordinary string (small bodies, tests)."""
    if isinstance(value, Base64Blob):
        return value.text()
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def encode_json(body: Mapping[str, Any]) -> bytes:
    """Compact UTF-8 JSON, as the OpenAI SDK and httpx write it (no ASCII escaping)."""
    token = secrets.token_hex(8)  # random: user text cannot forge a placeholder
    blobs: list[Base64Blob] = []

    def swap(value: Any) -> Any:
        if isinstance(value, Base64Blob):
            blobs.append(value)
            return f"@blob-{token}-{len(blobs) - 1}@"
        if isinstance(value, Mapping):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [swap(v) for v in value]
        return value

    text = json.dumps(swap(body), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    parts: list[bytes] = []
    for index, blob in enumerate(blobs):
        head, found, text = text.partition(f'"@blob-{token}-{index}@"')
        if not found:  # cannot happen: each placeholder is written exactly once, in order
            raise AssertionError("placeholder not found")
        if not _inert(blob.data):
            raise ValueError("a spliced payload must be base64 text")
        parts += [head.encode(), b'"', blob.prefix.encode("ascii"), blob.data, b'"']
    parts.append(text.encode())
    return b"".join(parts)


def _inert(data: bytes) -> bool:
    """True when the bytes cannot end or escape the JSON string they are placed in: ASCII
    without a quote or a backslash. (~1 ms for 13 MB; checking the whole base64 alphabet takes
    ~25x longer, and a stray control character could only make the server reject the body.)"""
    return data.isascii() and b'"' not in data and b"\\" not in data
