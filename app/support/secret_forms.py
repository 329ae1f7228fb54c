"""The forms a secret value takes in text a log writer can check cheaply.

A program that prints its environment may print a secret raw, URL-encoded, or base64-encoded
(`echo $TOKEN | base64`). Masking the exact value alone lets the last two through. Base64 of a
value inside other bytes depends on where it starts (offset 0, 1 or 2 in a 3-byte group), so for
each offset we keep only the characters that depend on the secret's bytes alone: those are in
the output whatever comes before or after it.
"""

from __future__ import annotations

import base64
import urllib.parse

_MIN_CORE = 6  # shorter encoded cores would match ordinary text


def _base64_cores(raw: bytes) -> set[str]:
    cores: set[str] = set()
    for offset in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * offset + raw).decode("ascii").rstrip("=")
            # Characters of a group mixing prefix bytes with the secret's differ by prefix.
            start = 0 if offset == 0 else 4
            # The last group mixes the secret's tail with whatever follows it.
            whole = (offset + len(raw)) // 3 * 4
            core = encoded[start:whole]
            if len(core) >= _MIN_CORE:
                cores.add(core)
    return cores


def encoded_forms(secret: str) -> set[str]:
    """The secret itself, its URL-encodings and the stable parts of its base64 forms."""
    forms = {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
    forms |= _base64_cores(secret.encode("utf-8"))
    return {f for f in forms if f}
