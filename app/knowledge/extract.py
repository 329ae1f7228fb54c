"""A file's text as lines, and which chunking rules fit it.

Line numbers of a citation are lines of this text. For Markdown, text, code and HTML they are
the file's own lines (HTML keeps its line breaks: markup is removed line by line, so a
citation opens the source at the right line). PDF and .docx have no lines of their own: a PDF
is its pages' extracted text, each page opened by a `[page N]` line; a .docx is one line per
paragraph, its headings written as Markdown headings (`## Title`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["markdown", "code", "text", "pdf"]

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".rst", ".adoc"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
DOCUMENT_SUFFIXES = frozenset({".pdf", ".docx"})
TEXT_SUFFIXES = frozenset({".txt", ".text", ".log", ".csv", ".tsv", ""})
# Known binaries, skipped without reading them (other files are sniffed, see looks_binary).
BINARY_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tiff", ".psd", ".mp3", ".mp4",
        ".wav", ".flac", ".ogg", ".mov", ".avi", ".mkv", ".webm", ".zip", ".gz", ".tgz", ".bz2",
        ".xz", ".7z", ".rar", ".tar", ".jar", ".exe", ".dll", ".so", ".dylib", ".o", ".a", ".class",
        ".pyc", ".wasm", ".bin", ".dat", ".db", ".sqlite", ".sqlite3", ".woff", ".woff2", ".ttf",
        ".otf", ".eot", ".doc", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".iso", ".dmg", ".npy",
    }
)  # fmt: skip
SNIFF_BYTES = 8192


class Unreadable(ValueError):
    """The file cannot give text (damaged PDF, encrypted, not a .docx)."""


@dataclass(frozen=True)
class Document:
    lines: tuple[str, ...]
    kind: Kind


def looks_binary(path: Path | str) -> bool:
    """A NUL byte or undecodable UTF-8 in the first 8 KB (a cut multi-byte tail is allowed)."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return True
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4
    return False


def extract(path: Path, data: bytes) -> Document:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return Document(_pdf_lines(data), "pdf")
    if suffix == ".docx":
        return Document(_docx_lines(data), "markdown")
    text = data.decode("utf-8-sig", errors="replace")
    lines = tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    if lines and lines[-1] == "":
        lines = lines[:-1]  # the final newline ends the last line, it does not start one
    if suffix in HTML_SUFFIXES:
        return Document(html_lines(lines), "text")
    if suffix in MARKDOWN_SUFFIXES:
        return Document(lines, "markdown")
    return Document(lines, "text" if suffix in TEXT_SUFFIXES else "code")


_SKIPPED_ELEMENT = re.compile(r"<(script|style|noscript|template|svg)\b.*?</\1\s*>", re.I | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>]*>", re.S)


def html_lines(lines: tuple[str, ...]) -> tuple[str, ...]:
    """The visible text of each line (removed parts keep their line breaks)."""
    source = "\n".join(lines)

    def blank(match: re.Match[str]) -> str:
        return "\n" * match.group(0).count("\n")

    source = _TAG.sub(blank, _COMMENT.sub(blank, _SKIPPED_ELEMENT.sub(blank, source)))
    return tuple(" ".join(html.unescape(line).split()) for line in source.split("\n"))


def _pdf_lines(data: bytes) -> tuple[str, ...]:
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise Unreadable("the PDF is encrypted")
        out: list[str] = []
        for number, page in enumerate(reader.pages, start=1):
            out.append(f"[page {number}]")
            out.extend((page.extract_text() or "").replace("\r", "").split("\n"))
    except (PdfReadError, ValueError, KeyError) as exc:
        raise Unreadable(f"the PDF could not be read ({exc})") from exc
    return tuple(out)


def _docx_lines(data: bytes) -> tuple[str, ...]:
    import io
    import zipfile

    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise Unreadable(f"the .docx could not be read ({exc})") from exc
    out: list[str] = []
    for paragraph in document.paragraphs:
        text = paragraph.text.replace("\n", " ")
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        level = _heading_level(style)
        out.append(f"{'#' * level} {text}" if level and text.strip() else text)
    return tuple(out)


def _heading_level(style: str) -> int:
    if style == "Title":
        return 1
    match = re.fullmatch(r"Heading (\d)", style)
    return int(match.group(1)) if match else 0
