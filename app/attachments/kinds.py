"""What kind of file an upload is, and the limits (SPEC S1.3).

The kind decides what the model sees: images as image parts (vision models only), text files
as named text, PDFs as their extracted text. Anything else is refused with a clear reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from app.contracts.errors import say

MAX_FILES = 10  # per message
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_FILE_BYTES = 20 * 1024 * 1024  # text files and PDFs
MAX_TEXT_CHARS = 200_000  # what a model is given of one text file or PDF

Kind = Literal["image", "text", "pdf"]

_IMAGE_MAGIC = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}
_TEXT_SUFFIXES = {
    ".txt",
    ".md",
    ".markdown",
    ".rst",
    ".csv",
    ".tsv",
    ".json",
    ".jsonl",
    ".yaml",
    ".yml",
    ".toml",
    ".ini",
    ".cfg",
    ".conf",
    ".log",
    ".xml",
    ".html",
    ".htm",
    ".css",
    ".js",
    ".mjs",
    ".ts",
    ".tsx",
    ".jsx",
    ".vue",
    ".py",
    ".rb",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".hpp",
    ".cs",
    ".swift",
    ".php",
    ".sh",
    ".bash",
    ".zsh",
    ".ps1",
    ".sql",
    ".r",
    ".lua",
    ".pl",
    ".tex",
}


class AttachmentRejected(ValueError):
    """The file cannot be attached (the message says why and what is allowed)."""


@dataclass(frozen=True)
class Classified:
    kind: Kind
    mime: str


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB"


def _image_mime(data: bytes) -> str | None:
    for magic, mime in _IMAGE_MAGIC.items():
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _looks_like_text(data: bytes) -> bool:
    if b"\x00" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def classify(name: str, mime: str, data: bytes) -> Classified:
    """Decide the kind from the bytes (never from the name alone) and check the size limit."""
    shown = PurePath(name).name or "file"
    image = _image_mime(data)
    if image is not None:
        if len(data) > MAX_IMAGE_BYTES:
            raise AttachmentRejected(
                say("attach.image_too_large", name=shown, size=_mb(len(data)), max=_mb(MAX_IMAGE_BYTES))
            )
        return Classified("image", image)
    if len(data) > MAX_FILE_BYTES:
        raise AttachmentRejected(
            say("attach.file_too_large", name=shown, size=_mb(len(data)), max=_mb(MAX_FILE_BYTES))
        )
    if data.startswith(b"%PDF-"):
        return Classified("pdf", "application/pdf")
    if _looks_like_text(data) and (
        mime.startswith("text/")
        or PurePath(name).suffix.lower() in _TEXT_SUFFIXES
        or mime in ("", "application/json")
    ):
        return Classified(
            "text", mime if mime.startswith("text/") or mime == "application/json" else "text/plain"
        )
    raise AttachmentRejected(say("attach.unsupported_kind", name=shown))
