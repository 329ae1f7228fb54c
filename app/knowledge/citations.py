"""Citations the UI opens: which file of a knowledge base an answer's `path:start-end` names,
and that file's text around those lines.

Only an INDEXED file of a base is ever located or read (a row of `kb_files`: what the search
could already show the model), and only while it is still that file: its real path (symbolic
links resolved now) must be the indexed path and lie inside the real path of one of its base's
roots. So `..`, a path outside every root, a skipped file (hidden, `.gitignore`d, over the
cap), and a file or folder swapped for a symbolic link after indexing are all refused.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from app.contracts.errors import ApiFailure, say
from app.knowledge.extract import Unreadable, extract
from app.knowledge.store import KnowledgeStore

MAX_PATH = 4096
CONTEXT_LINES = 20  # shown above and below the cited lines
MAX_LINES = 400  # lines of one excerpt at most (a citation of a whole long file is cut)
MAX_LINE_CHARS = 2000  # a longer line is cut (minified code, a PDF page as one line)


@dataclass(frozen=True)
class Located:
    base: str
    path: str  # the indexed file, absolute
    folder: str | None  # its folder, when that is inside a folder root of the base


@dataclass(frozen=True)
class Excerpt:
    located: Located
    start_line: int  # the cited range, clamped to the file
    end_line: int
    first_line: int  # number of lines[0]
    lines: tuple[str, ...]
    total_lines: int


def refused(raw: str) -> ApiFailure:
    return ApiFailure("not_found", say("knowledge.not_kb_file", path=raw))


class CitationFiles:
    def __init__(self, store: KnowledgeStore, size_cap: int) -> None:
        self._store = store
        self._cap = size_cap

    def locate(self, raw: str) -> Located | None:
        """An absolute path, exactly as indexed (the desktop opener and the viewer use it)."""
        path = _clean(raw)
        if path is None or not os.path.isabs(path):
            return None
        return self._checked(path)

    def resolve(self, raw: str) -> Located | None:
        """A path as an answer cites it: absolute; relative to a folder of a base
        (`notes/a.md`); or the unique indexed file ending with it (models shorten paths)."""
        path = _clean(raw)
        if path is None:
            return None
        if os.path.isabs(path):
            return self._checked(path)
        rel = os.path.normpath(path)
        if rel == "." or rel == ".." or rel.startswith(".." + os.sep):
            return None
        for roots in self._store.all_roots().values():
            for root in roots:
                found = self._checked(os.path.join(root, rel))
                if found is not None:
                    return found
        matches = self._store.paths_ending(os.sep + rel, limit=2)
        return self._checked(matches[0]) if len(matches) == 1 else None

    def read(self, raw: str, start: int, end: int) -> Excerpt:
        """The file's text (as indexed: extracted, the citation's line numbers) around
        start..end. Refuses what `locate` refuses; never reads more than the size cap."""
        found = self.locate(raw)
        if found is None:
            raise refused(raw)
        data = _read_capped(found.path, self._cap, raw)
        try:
            lines = extract(Path(found.path), data).lines
        except Unreadable as exc:
            raise ApiFailure("invalid", say("knowledge.unreadable", path=raw, reason=exc)) from exc
        total = len(lines)
        if total == 0:
            return Excerpt(found, 1, 1, 1, (), 0)
        start = min(max(start, 1), total)
        end = min(max(end, start), total)
        first = max(1, start - CONTEXT_LINES)
        last = min(total, end + CONTEXT_LINES, first + MAX_LINES - 1)
        shown = tuple(_cut(t) for t in lines[first - 1 : last])
        return Excerpt(found, start, end, first, shown, total)

    def _checked(self, path: str) -> Located | None:
        path = os.path.normpath(path)
        indexed = self._store.indexed_file(path)
        if indexed is None:
            return None
        base, roots = indexed
        try:
            if os.path.realpath(path) != path or not stat.S_ISREG(os.lstat(path).st_mode):
                return None  # a symbolic link now (swapped after indexing), or not a file
        except OSError:
            return None
        parent = os.path.dirname(path)
        inside = False
        folder: str | None = None
        for root in roots:
            real_root = os.path.realpath(root)
            if path == real_root:
                inside = True  # a single-file root: its folder is not the base's
            elif path.startswith(real_root.rstrip(os.sep) + os.sep):
                inside = True
                folder = parent
        return Located(base, path, folder) if inside else None


def _clean(raw: str) -> str | None:
    path = raw.strip()
    if not path or len(path) > MAX_PATH or "\0" in path or not path.isprintable():
        return None
    return os.path.expanduser(path) if path.startswith("~") else path


def _read_capped(path: str, cap: int, raw: str) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise refused(raw) from exc
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise refused(raw)
        if st.st_size > cap:
            raise ApiFailure("invalid", say("knowledge.file_too_large", path=raw, limit=cap // (1024 * 1024)))
        return f.read(cap + 1)[:cap]


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
