"""Finding a bearer token in text without eating prose ("a bearer token is required",
"jwt-bearer grant", "Bearer of news" stay as written): shared by the secret masker
(app/settings/secrets.py) and the log filter (app/observability/logs.py)."""

from __future__ import annotations

import re

# `Bearer` as a word of its own (not the tail of `jwt-bearer`), then one token-like run.
BEARER = re.compile(r"(?<![\w-])(Bearer)\s+([A-Za-z0-9._~+/=\-]{4,})", re.IGNORECASE)
_TOKEN_MARKS = frozenset("0123456789._~+/=")
_LONG = 20  # a run of letters this long is no English word in an error message


def looks_like_token(text: str) -> bool:
    """A credential has digits or token punctuation, or is long; a word of prose has neither."""
    return len(text) >= _LONG or any(c in _TOKEN_MARKS for c in text)


def masked_bearer(mask: str, match: re.Match[str]) -> str:
    """For `BEARER.sub`: the token masked, or the text unchanged when it is a word."""
    if looks_like_token(match.group(2)):
        return f"{match.group(1)} {mask}"
    return match.group(0)
