"""Redaction for diagnostics shown in the UI: no home paths, nothing that looks like a secret."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_SECRET_PATTERNS = (
    re.compile(r"(?i)\b(api[_-]?key|token|secret|password|passwd|authorization)\b(\s*[:=]\s*)\S+"),
    re.compile(r"\b(sk|pk|ghp|gho|github_pat|xox[abpr])[-_][A-Za-z0-9_\-]{8,}"),
    # Long unbroken letter+digit runs (hex keys, base64 tokens); "/", "-", "_" end a run so
    # paths and snake_case names survive.
    re.compile(r"\b(?=[A-Za-z+]*\d)(?=[0-9+]*[A-Za-z])[A-Za-z0-9+]{32,}={0,2}"),
)


@dataclass(frozen=True)
class Redactor:
    home: Path | None
    max_chars: int = 300

    def __call__(self, text: str) -> str:
        if self.home is not None:
            home = str(self.home).rstrip("/\\")
            if len(home) > 1:
                text = text.replace(home, "~")
        text = _SECRET_PATTERNS[0].sub(lambda m: f"{m.group(1)}{m.group(2)}***", text)
        for pattern in _SECRET_PATTERNS[1:]:
            text = pattern.sub("***", text)
        if len(text) > self.max_chars:
            text = text[: self.max_chars - 1] + "…"
        return text
