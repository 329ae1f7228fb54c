"""Reading files of an installed Skill package for the runtime tools.

A path given by the model is relative to the package folder. It must not be absolute, use
`..`, backslashes or NUL, and no component may be a symbolic link (checked with lstat on every
step, so a link planted inside the package cannot lead outside it). Text is read up to 2 MiB (the
tools page it); binary files
(NUL bytes or not UTF-8) are described by metadata only, never returned.
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_READ_BYTES = 2 * 1024 * 1024
MAX_LISTED_FILES = 300


class ResourceError(Exception):
    """A refused or unreadable package path (the message is for the model)."""


@dataclass(frozen=True)
class Resource:
    rel: str
    path: Path
    size: int
    sha256: str
    mime: str
    text: str | None  # None: binary
    truncated: bool


def resolve_package_file(package: Path, rel: str) -> Path:
    """The real path of regular file `rel` inside `package`, or ResourceError."""
    if not isinstance(rel, str) or not rel.strip() or "\x00" in rel or "\\" in rel:
        raise ResourceError("The path must be a non-empty relative path with '/' separators.")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ":" in pure.parts[0]:
        raise ResourceError(f"'{rel}' is absolute; give a path relative to the Skill folder.")
    parts = [p for p in pure.parts if p != "."]
    if not parts or any(p == ".." for p in parts):
        raise ResourceError(f"'{rel}' leaves the Skill folder; '..' is not allowed.")
    current = package
    for index, part in enumerate(parts):
        current = current / part
        try:
            info = os.lstat(current)
        except OSError:
            raise ResourceError(f"'{rel}' does not exist in the Skill.") from None
        if stat.S_ISLNK(info.st_mode):
            raise ResourceError(f"'{rel}' goes through a symbolic link; links are refused.")
        last = index == len(parts) - 1
        if not last and not stat.S_ISDIR(info.st_mode):
            raise ResourceError(f"'{rel}' does not exist in the Skill.")
        if last and not stat.S_ISREG(info.st_mode):
            raise ResourceError(f"'{rel}' is not a regular file.")
    return current


def read_resource(package: Path, rel: str) -> Resource:
    """The file's text (the first MAX_READ_BYTES; `truncated` when it has more), for the
    caller to page within the output budget; or its metadata when it is binary."""
    path = resolve_package_file(package, rel)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(MAX_READ_BYTES)
            digest = hashlib.sha256(head)
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        raise ResourceError(f"Cannot read '{rel}': {exc.strerror or exc}.") from None
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    text = _as_text(head, complete=size <= MAX_READ_BYTES)
    truncated = text is not None and size > MAX_READ_BYTES
    return Resource(rel, path, size, digest.hexdigest(), mime, text, truncated)


def _as_text(data: bytes, *, complete: bool) -> str | None:
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A cut in the middle of a multi-byte character at the read limit is still text.
        if not complete and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8")
        return None


def list_package_files(package: Path, limit: int = MAX_LISTED_FILES) -> tuple[list[str], int]:
    """Relative paths of regular files (links are not followed), sorted; and the total count."""
    found: list[str] = []
    for current, dirs, files in os.walk(package, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") or d == ".")
        for name in files:
            full = os.path.join(current, name)
            if os.path.islink(full) or name.startswith(".SKILL.md."):
                continue
            found.append(os.path.relpath(full, package).replace(os.sep, "/"))
    found.sort()
    return found[:limit], len(found)


_CATEGORIES = {
    "scripts": "script",
    "references": "reference",
    "reference": "reference",
    "assets": "asset",
    "templates": "template",
}


def file_category(rel: str) -> str:
    """What a package file is for the model: by its top folder (the Agent Skills layout)."""
    if rel == "SKILL.md":
        return "instructions"
    top = rel.split("/", 1)[0] if "/" in rel else ""
    return _CATEGORIES.get(top, "other")


def describe_files(package: Path, files: list[str]) -> list[str]:
    """The listed files grouped by category (`script files:` then `- path (43 B)` lines), with
    their sizes from lstat (links are not listed anyway)."""
    groups: dict[str, list[str]] = {}
    for rel in files:
        try:
            size = _size(os.lstat(package / rel).st_size)
        except OSError:
            size = "size unknown"
        groups.setdefault(file_category(rel), []).append(f"- {rel} ({size})")
    lines: list[str] = []
    for category in sorted(groups, key=_CATEGORY_ORDER.index):
        lines.append(f"{category} files:")
        lines.extend(groups[category])
    return lines


_CATEGORY_ORDER = ["instructions", "reference", "script", "template", "asset", "other"]


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(path, flags), "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
