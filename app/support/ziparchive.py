"""Unpacking an untrusted ZIP (a Skill, an MCP Bundle): the hostile-archive rules in one place.

Nothing about a member is trusted: names are checked before anything is written, types come
from the Unix mode bits, and sizes are counted from the bytes actually decompressed. Every
check that can be made from the central directory (names, links, special files, claimed sizes,
duplicates) runs before the first byte is written, so a refused archive leaves nothing behind.
Where the package root is (a top-level folder or not) is the caller's business.
"""

from __future__ import annotations

import lzma
import os
import re
import stat
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

MiB = 1024 * 1024
_CHUNK = 64 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")
# Finder adds these to every ZIP it makes; they are never part of a package.
_JUNK_DIRS = ("__MACOSX",)
_JUNK_FILES = (".DS_Store",)


# The English of every refusal, by the key the UI words it from in its own language (the same
# entries are in app/contracts/error_texts.py, which this layer cannot import; a test keeps the
# two equal). Numbers, member names and system error text are parameters (issue 41).
TEXTS: dict[str, str] = {
    "zip.control": "A member name contains control characters.",
    "zip.drive": "'{name}' has a drive letter or ':' in its path.",
    "zip.absolute": "'{name}' is an absolute path.",
    "zip.backslash": "'{name}' uses a backslash in its path; ZIP paths must use '/'.",
    "zip.long_name": "A member name is longer than 1024 characters.",
    "zip.traversal": "'{name}' tries to leave the {what} folder ('..').",
    "zip.traversal_outside": "'{name}' would land outside the {what}.",
    "zip.odd_path": "'{name}' has an empty or '.' path segment.",
    "zip.encrypted": "'{name}' is encrypted; password-protected ZIPs are refused.",
    "zip.symlink": "'{name}' is a symbolic link; links are refused.",
    "zip.special": "'{name}' is a device, pipe or socket, not a file.",
    "zip.duplicate": "'{name}' appears twice in the ZIP.",
    "zip.duplicate_kind": "'{name}' is both a file and a folder in the ZIP.",
    "zip.unreadable": "Cannot read the ZIP file ({reason}).",
    "zip.not_file": "'{name}' is not a regular file, so it cannot be a ZIP archive.",
    "zip.archive_size": "The ZIP is {size} bytes; the limit is {max} MiB.",
    "zip.not_zip": "The file is not a readable ZIP archive ({reason}).",
    "zip.members": "The ZIP has {count} entries; the limit is {max}.",
    "zip.file_size": "'{name}' is larger than {max} MiB.",
    "zip.file_size_bytes": "'{name}' is larger than {max} bytes.",
    "zip.file_size_expands": "'{name}' expands past {max} MiB.",
    "zip.expanded_size": "The ZIP expands past {max} MiB.",
    "zip.bomb": "The ZIP expands past {max} MiB (compression bomb).",
    "zip.corrupt": "'{name}' cannot be read ({reason}).",
    "zip.size_mismatch": "'{name}' does not have the size its header claims.",
}


class ArchiveRefused(ValueError):
    """The archive breaks a rule. `rule` is a stable id (`zip.traversal`), the message is for
    people and says which member and why; `key` and `params` are the message's entry in TEXTS
    and what fills it in, so a caller can word it in another language (`say(key, **params)`);
    `name` is the member as shown ("" when none)."""

    def __init__(self, rule: str, key: str, params: dict[str, str]) -> None:
        message = TEXTS[key].format(**params)
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.key = key
        self.params = params
        self.name = params.get("name", "")


@dataclass(frozen=True)
class ArchiveLimits:
    max_archive_bytes: int = 10 * MiB
    max_members: int = 512
    max_total_bytes: int = 50 * MiB
    max_file_bytes: int = 5 * MiB


@dataclass(frozen=True)
class Member:
    info: zipfile.ZipInfo
    parts: tuple[str, ...]  # path split on "/", already checked
    is_dir: bool


def refuse(rule: str, key: str = "", **params: object) -> NoReturn:
    """Raise the refusal of `rule`, worded by TEXTS[key] (`key` defaults to the rule)."""
    raise ArchiveRefused(rule, key or rule, {name: str(value) for name, value in params.items()})


def _check_name(name: str, what: str) -> tuple[str, ...]:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        refuse("zip.control")
    shown = name[:120]  # checked for control characters first, so it is safe to show
    if _DRIVE.match(name) or ":" in name:
        refuse("zip.drive", name=shown)
    if name.startswith("/"):
        refuse("zip.absolute", name=shown)
    if "\\" in name:
        refuse("zip.backslash", name=shown)
    if len(name) > 1024:
        refuse("zip.long_name")
    parts = tuple(name.rstrip("/").split("/"))
    if ".." in parts:
        refuse("zip.traversal", name=shown, what=what)
    if any(p in ("", ".") for p in parts):
        refuse("zip.odd_path", name=shown)
    return parts


def _check_type(info: zipfile.ZipInfo) -> None:
    if info.flag_bits & 0x1:
        refuse("zip.encrypted", name=info.filename[:120])
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind in (0, stat.S_IFREG, stat.S_IFDIR):
        return
    if kind == stat.S_IFLNK:
        refuse("zip.symlink", name=info.filename[:120])
    refuse("zip.special", name=info.filename[:120])


def _is_junk(parts: tuple[str, ...]) -> bool:
    return parts[0] in _JUNK_DIRS or parts[-1] in _JUNK_FILES


def member_key(parts: Sequence[str]) -> str:
    # Case-folded NFC: two names that map to one file on macOS/Windows are duplicates.
    return unicodedata.normalize("NFC", "/".join(parts)).casefold()


def _check_duplicates(members: list[Member]) -> None:
    files: set[str] = set()
    dirs: set[str] = set()
    for member in members:
        key = member_key(member.parts)
        if member.is_dir:
            dirs.add(key)
        elif key in files:
            refuse("zip.duplicate", name=member.info.filename[:120])
        else:
            files.add(key)
        for depth in range(1, len(member.parts)):
            dirs.add(member_key(member.parts[:depth]))
    clash = files & dirs
    if clash:
        refuse("zip.duplicate", "zip.duplicate_kind", name=sorted(clash)[0][:120])


def open_archive(zip_path: Path, limits: ArchiveLimits) -> zipfile.ZipFile:
    """Open `zip_path` after checking it is a regular file within the size limit."""
    try:
        st = zip_path.stat()
    except OSError as exc:
        refuse("zip.unreadable", reason=exc.strerror or exc)
    if not stat.S_ISREG(st.st_mode):
        # A FIFO would block the open forever and /dev/zero never ends: refuse before opening.
        refuse("zip.not_file", name=zip_path)
    size = st.st_size
    if size > limits.max_archive_bytes:
        refuse("zip.archive_size", size=size, max=limits.max_archive_bytes // MiB)
    try:
        return zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        refuse("zip.not_zip", reason=str(exc)[:80])


def plan_members(archive: zipfile.ZipFile, limits: ArchiveLimits, what: str) -> list[Member]:
    """Every member, checked from the central directory (junk dropped); nothing is read yet."""
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        refuse("zip.members", count=len(infos), max=limits.max_members)
    members: list[Member] = []
    declared = 0
    for info in infos:
        parts = _check_name(info.filename, what)
        _check_type(info)
        if _is_junk(parts):
            continue
        if info.file_size > limits.max_file_bytes:
            refuse("zip.file_size", name=info.filename[:120], max=limits.max_file_bytes // MiB)
        declared += info.file_size
        members.append(Member(info, parts, info.is_dir()))
    if declared > limits.max_total_bytes:
        refuse("zip.expanded_size", max=limits.max_total_bytes // MiB)
    _check_duplicates(members)
    return members


def _chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    try:
        with archive.open(info) as source:
            while chunk := source.read(_CHUNK):
                yield chunk
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, ValueError) as exc:
        refuse("zip.corrupt", name=info.filename[:120], reason=f"{type(exc).__name__}: {str(exc)[:80]}")
    except OSError as exc:  # bz2 reports bad data as OSError; the ZIP is the only file read here
        refuse("zip.corrupt", name=info.filename[:120], reason=exc.strerror or exc)


def read_member(archive: zipfile.ZipFile, member: Member, max_bytes: int) -> bytes:
    """One member's bytes in memory (a manifest), at most `max_bytes`, size checked."""
    out = bytearray()
    for chunk in _chunks(archive, member.info):
        out += chunk
        if len(out) > max_bytes:
            refuse("zip.file_size", "zip.file_size_bytes", name=member.info.filename[:120], max=max_bytes)
    if len(out) != member.info.file_size:
        refuse("zip.size_mismatch", name=member.info.filename[:120])
    return bytes(out)


class _Budget:
    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.total = 0

    def take(self, info: zipfile.ZipInfo, written: int, size: int) -> None:
        self.total += size
        if written > self.limits.max_file_bytes:
            max_mib = self.limits.max_file_bytes // MiB
            refuse("zip.file_size", "zip.file_size_expands", name=info.filename[:120], max=max_mib)
        if self.total > self.limits.max_total_bytes:
            refuse("zip.bomb", max=self.limits.max_total_bytes // MiB)


def _extract_file(archive: zipfile.ZipFile, member: Member, target: Path, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with target.open("xb") as sink:
        for chunk in _chunks(archive, member.info):
            written += len(chunk)
            budget.take(member.info, written, len(chunk))
            sink.write(chunk)
    if written != member.info.file_size:
        refuse("zip.size_mismatch", name=member.info.filename[:120])
    if (member.info.external_attr >> 16) & 0o111:
        os.chmod(target, 0o755)  # keep scripts runnable; nothing else is carried over


def extract_members(
    archive: zipfile.ZipFile, members: Sequence[Member], dest: Path, limits: ArchiveLimits, what: str
) -> None:
    """Write `members` (their `parts` relative to `dest`) into `dest`, which must not exist yet.
    On a refusal mid-way the caller removes `dest`."""
    dest.mkdir(parents=False, exist_ok=False)
    budget = _Budget(limits)
    root = os.path.realpath(dest)
    for member in members:
        target = dest.joinpath(*member.parts)
        if not os.path.realpath(target).startswith(root + os.sep):
            refuse("zip.traversal", "zip.traversal_outside", name=member.info.filename[:120], what=what)
        if member.is_dir:
            target.mkdir(parents=True, exist_ok=True)
        else:
            _extract_file(archive, member, target, budget)
