"""Content-addressed attachment bytes under `<data>/attachments/<sha256[:2]>/<sha256>`.

SQLite stores only `AttachmentRef`s (in the message meta); the same file attached twice is
stored once. Writes are atomic (temp file + fsync + os.replace), so a crash never leaves a
half-written file under a valid name.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class AttachmentMissing(LookupError):
    """No bytes stored for that digest."""


def valid_digest(value: str) -> bool:
    return bool(_SHA256.fullmatch(value))


class AttachmentStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        if not valid_digest(sha256):
            raise ValueError(f"invalid attachment digest {sha256[:80]!r}")
        return self.root / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        """Store `data` (if new) and return its sha256."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.path(digest)
        if target.is_file() and target.stat().st_size == len(data):
            return digest
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".part-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return digest

    def read(self, sha256: str) -> bytes:
        target = self.path(sha256)
        try:
            return target.read_bytes()
        except FileNotFoundError as exc:
            raise AttachmentMissing(f"attachment {sha256} is missing from {self.root}") from exc

    def exists(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def text_sidecar(self, sha256: str) -> str | None:
        """Cached extracted text (PDFs), or None."""
        try:
            return self.path(sha256).with_suffix(".txt").read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def save_text_sidecar(self, sha256: str, text: str) -> None:
        target = self.path(sha256).with_suffix(".txt")
        fd, tmp = tempfile.mkstemp(prefix=".part-", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
