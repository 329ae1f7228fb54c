"""Lines → chunks of about 1,000–2,000 characters, cut where the text has seams.

A file is first cut into blocks: a Markdown heading starts a new section (and a new chunk: a
chunk never mixes two sections, so its heading trail is exact), a fenced code block is one
block, otherwise blank lines separate blocks (paragraphs; in code, the gaps between
functions). Blocks are packed into a chunk until the next one would pass MAX_CHARS; a chunk
cut for size repeats the last lines of the previous one (up to OVERLAP_CHARS) so a sentence at
the seam is found whole. A block longer than MAX_CHARS is cut at line ends (a single line
longer than that is cut inside, keeping its line number). Blank lines never begin or end a
chunk, so its line range is tight.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from app.knowledge.extract import Document, Unreadable
from app.knowledge.models import Chunk

MAX_CHARS = 2000
TARGET_CHARS = 1000  # a chunk this long is closed at the next seam
OVERLAP_CHARS = 200

_PAGE = re.compile(r"^\[page (\d+)\]$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class _Block:
    lines: list[tuple[int, str]]  # (1-based line number, text)
    trail: str
    new_section: bool
    size: int = -1  # characters incl. line ends; summed once (chunk() and _pieces both need it)

    def __post_init__(self) -> None:
        if self.size < 0:
            self.size = _size(self.lines)


def chunk(doc: Document, deadline: float | None = None) -> list[Chunk]:
    """`deadline` (time.monotonic()): past it, Unreadable (the per-file time limit)."""
    packer = _Packer()
    for block in _blocks(doc, deadline):
        if block.new_section or (packer.lines and packer.size + block.size > MAX_CHARS):
            packer.close(keep_overlap=not block.new_section)
        if block.new_section or not packer.lines:
            packer.trail = block.trail
        for piece, piece_size in _pieces(block.lines, block.size):
            if packer.lines and packer.size + piece_size > MAX_CHARS:
                packer.close(keep_overlap=True)
                if packer.size + piece_size > MAX_CHARS:
                    packer.reset([])
            packer.add(piece, piece_size)
        if packer.size >= TARGET_CHARS * 1.5:
            packer.close(keep_overlap=True)
    packer.close(keep_overlap=False)
    return packer.out


class _Packer:
    """The chunk being filled; its size is kept as lines are added (files have many lines)."""

    def __init__(self) -> None:
        self.out: list[Chunk] = []
        self.lines: list[tuple[int, str]] = []
        self.size = 0
        self.fresh = False  # holds lines beyond the previous chunk's overlap
        self.trail = ""

    def add(self, piece: list[tuple[int, str]], size: int) -> None:
        self.lines.extend(piece)
        self.size += size
        self.fresh = self.fresh or _has_text(piece)

    def reset(self, lines: list[tuple[int, str]]) -> None:
        self.lines, self.size, self.fresh = lines, _size(lines), False

    def close(self, *, keep_overlap: bool) -> None:
        if not self.fresh:
            self.reset(self.lines if keep_overlap else [])
            return
        _emit(self.out, self.lines, self.trail)
        self.reset(_tail(self.lines) if keep_overlap else [])


def _blocks(doc: Document, deadline: float | None) -> Iterator[_Block]:
    stack: list[tuple[int, str]] = []  # (level, title) of the headings above
    lines: list[tuple[int, str]] = []
    trail = ""
    new_section = False
    fence: str | None = None
    for number, text in enumerate(doc.lines, start=1):
        if deadline is not None and not number % 1024 and time.monotonic() > deadline:
            raise Unreadable("took too long to read")
        if fence is not None:
            lines.append((number, text))
            if text.strip().startswith(fence):
                fence = None
            continue
        heading = _heading(doc, text)
        if heading is not None:
            if lines:
                yield _Block(lines, trail, new_section)
            level, title = heading
            stack = [h for h in stack if h[0] < level] + [(level, title)]
            trail = " > ".join(t for _, t in stack)
            lines, new_section = [(number, text)], True
            continue
        fenced = _FENCE.match(text) if doc.kind == "markdown" else None
        if fenced or not text.strip():
            if lines and _has_text(lines):
                yield _Block(lines, trail, new_section)
                lines, new_section = [], False
            if fenced:
                fence = fenced.group(1)
        lines.append((number, text))
    if lines:
        yield _Block(lines, trail, new_section)


def _heading(doc: Document, text: str) -> tuple[int, str] | None:
    if doc.kind == "markdown":
        return markdown_heading(text)
    if doc.kind == "pdf":
        page = _PAGE.match(text)
        return (1, f"page {page.group(1)}") if page else None
    return None


def markdown_heading(text: str) -> tuple[int, str] | None:
    """`(level, title)` of an ATX heading line, else None. What `^(#{1,6})\\s+(.+?)\\s*#*\\s*$`
    matched, in linear time: that regex backtracked in cubic time on a heading line holding a
    long run of spaces (1.5 KB froze the app for 8 s, issue 33.6)."""
    level = len(text) - len(text.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    rest = text[level:]
    body = rest.lstrip()
    if len(rest) == len(body):
        return None  # `#` not followed by whitespace
    if not body:  # whitespace only: the regex's title was its last character (it needs one)
        return (level, rest[-1]) if len(rest) >= 2 else None
    # The shortest title after which only whitespace, a run of `#` and whitespace remain.
    title = body.rstrip().rstrip("#").rstrip()
    return level, title or body[0]


def _pieces(lines: list[tuple[int, str]], size: int) -> Iterator[tuple[list[tuple[int, str]], int]]:
    """A block (of `size` characters) as pieces of at most MAX_CHARS with their sizes (whole
    lines; an over-long line cut inside)."""
    if size <= MAX_CHARS:
        yield lines, size
        return
    piece: list[tuple[int, str]] = []
    piece_size = 0
    for number, text in lines:
        parts = [text[i : i + MAX_CHARS - 1] for i in range(0, len(text), MAX_CHARS - 1)] or [""]
        for part in parts:
            if piece and piece_size + len(part) + 1 > MAX_CHARS:
                yield piece, piece_size
                piece, piece_size = [], 0
            piece.append((number, part))
            piece_size += len(part) + 1
    if piece:
        yield piece, piece_size


def _tail(lines: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """The last lines of a chunk, up to OVERLAP_CHARS (or its last line alone when that is up
    to twice as long: prose paragraphs are often single long lines)."""
    tail: list[tuple[int, str]] = []
    size = 0
    for number, text in reversed(_trim(list(lines))):
        if size + len(text) + 1 > OVERLAP_CHARS:
            if not tail and len(text) + 1 <= 2 * OVERLAP_CHARS:
                tail.insert(0, (number, text))
            break
        tail.insert(0, (number, text))
        size += len(text) + 1
    return tail if _has_text(tail) else []


def _emit(out: list[Chunk], lines: list[tuple[int, str]], trail: str) -> None:
    body = _trim(lines)
    if not body:
        return
    out.append(Chunk(start_line=body[0][0], end_line=body[-1][0], heading=trail, text=_join(body)))


def _join(lines: list[tuple[int, str]]) -> str:
    out: list[str] = []
    last = -1
    for number, text in lines:
        if number == last and out:
            out[-1] += text  # pieces of one over-long line
        else:
            out.append(text)
        last = number
    return "\n".join(out)


def _trim(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    start, end = 0, len(lines)
    while start < end and not lines[start][1].strip():
        start += 1
    while end > start and not lines[end - 1][1].strip():
        end -= 1
    return lines[start:end]


def _has_text(lines: Sequence[tuple[int, str]]) -> bool:
    return any(t.strip() for _, t in lines)


def _size(lines: Sequence[tuple[int, str]]) -> int:
    return sum(len(t) + 1 for _, t in lines)
