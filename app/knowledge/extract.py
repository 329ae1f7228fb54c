"""A file's text as lines, and which chunking rules fit it.

Line numbers of a citation are lines of this text. For Markdown, text, code and HTML they are
the file's own lines (HTML keeps its line breaks: markup is removed line by line, so a
citation opens the source at the right line). PDF and .docx have no lines of their own: a PDF
is its pages' extracted text, each page opened by a `[page N]` line; a .docx is one line per
paragraph, its headings written as Markdown headings (`## Title`).
"""

from __future__ import annotations

import html
import os
import re
import stat
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
DOCX_EXPANSION = 20  # a .docx may unpack to this many times its size (text compresses ~5-10x)
DOCX_FLOOR = 4 * 1024 * 1024  # ... or this much, whichever is more (small files: fixed parts)
HARD_LINK = "a hard link (another name of this file may be outside the folder)"


class Unreadable(ValueError):
    """The file cannot give text (damaged PDF, encrypted, not a .docx)."""


@dataclass(frozen=True)
class Document:
    lines: tuple[str, ...]
    kind: Kind


def open_flags() -> int:
    """How a file of a base is opened: never through a symbolic link, never waiting (a FIFO or
    device swapped in after the scan is refused by the caller's fstat, not blocked on)."""
    extra = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.O_RDONLY | extra


def looks_binary(path: Path | str) -> bool:
    """A NUL byte or undecodable UTF-8 in the first 8 KB (a cut multi-byte tail is allowed);
    True for anything that is not a regular file once opened."""
    try:
        fd = os.open(path, open_flags())
    except OSError:
        return True
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return True
        head = os.read(fd, SNIFF_BYTES)
    except OSError:
        return True
    finally:
        os.close(fd)
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


_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg"})
_NAME = re.compile(r"[A-Za-z]+")
_WORD = re.compile(r"\w")
_CLOSE = {name: re.compile(rf"</{name}\s*>", re.I) for name in _SKIPPED}


def html_lines(lines: tuple[str, ...]) -> tuple[str, ...]:
    """The visible text of each line (removed parts keep their line breaks)."""
    source = _strip_markup("\n".join(lines))
    return tuple(" ".join(html.unescape(line).split()) for line in source.split("\n"))


def _strip_markup(source: str) -> str:
    """Skipped elements (script, style, …), comments and tags replaced by their line breaks,
    in one pass: linear time. The regexes this replaces (`<!--.*?-->`, `<[^>]*>`,
    `<(script|…)\\b.*?</\\1\\s*>`) rescanned to the end of the text from every unclosed `<`,
    quadratic in its length (issue 33.6). Here a search that found no end is remembered: a
    later one from further on cannot find one either."""
    out: list[str] = []
    missing: dict[str, int] = {}  # needle -> a position from which it was not found

    def find(needle: str, start: int) -> int:
        if missing.get(needle, len(source) + 1) <= start:
            return -1
        if needle in _CLOSE:
            found = _CLOSE[needle].search(source, start)
            at = found.end() if found else -1
        else:
            at = source.find(needle, start)
            at = at + len(needle) if at >= 0 else -1
        if at < 0:
            missing[needle] = start
        return at

    def blank(start: int, end: int) -> None:
        out.append("\n" * source.count("\n", start, end))

    i = 0
    while (lt := source.find("<", i)) >= 0:
        out.append(source[i:lt])
        end = -1
        if source.startswith("<!--", lt):
            end = find("-->", lt + 4)
        else:
            name = _NAME.match(source, lt + 1)
            word = name.group(0).lower() if name else ""
            after = name.end() if name else lt
            if word in _SKIPPED and not _WORD.match(source, after):  # `\\b` after the name
                end = find(word, after)
        if end < 0:
            end = find(">", lt + 1)  # a tag (or an unclosed element or comment: up to its `>`)
        if end < 0:
            out.append("<")  # no `>` anywhere after it: plain text
            i = lt + 1
            continue
        blank(lt, end)
        i = end
    out.append(source[i:])
    return "".join(out)


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
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(max(0, i.file_size) for i in archive.infolist())
        # A zip member never inflates past its declared size (zipfile stops there), so the
        # declared total bounds what reading it costs (issue 33.7: a .docx bomb).
        if unpacked > max(DOCX_EXPANSION * len(data), DOCX_FLOOR):
            raise Unreadable(f"the .docx unpacks to more than {DOCX_EXPANSION}x its size")
        document = docx.Document(io.BytesIO(data))
    except Unreadable:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, SyntaxError, EOFError, OSError) as exc:
        # SyntaxError: lxml's XMLSyntaxError (a damaged part); one file fails, not the run
        raise Unreadable(f"the .docx could not be read ({type(exc).__name__})") from exc
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
