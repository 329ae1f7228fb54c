"""Safe ZIP import (SPEC S7.5) and deterministic export.

Nothing about a member is trusted: names are checked before anything is written, types come
from the Unix mode bits, and sizes are counted from the bytes actually decompressed."""

from __future__ import annotations

import lzma
import os
import re
import stat
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from app.contracts.errors import say
from app.skills.model import SKILL_FILE, ArchiveRejected, SkillProblem

MiB = 1024 * 1024
_CHUNK = 64 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")
# Finder adds these to every ZIP it makes; they are never part of a Skill.
_JUNK_DIRS = ("__MACOSX",)
_JUNK_FILES = (".DS_Store",)
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class ArchiveLimits:
    max_archive_bytes: int = 10 * MiB
    max_members: int = 512
    max_total_bytes: int = 50 * MiB
    max_file_bytes: int = 5 * MiB


@dataclass(frozen=True)
class _Member:
    info: zipfile.ZipInfo
    parts: tuple[str, ...]  # path split on "/", already checked
    is_dir: bool


def _reject(rule: str, message: str) -> NoReturn:
    raise ArchiveRejected(SkillProblem(rule, message))


def _check_name(name: str) -> tuple[str, ...]:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        _reject("zip.control", "A member name contains control characters.")
    shown = name[:120]  # checked for control characters first, so it is safe to show
    if _DRIVE.match(name) or ":" in name:
        _reject("zip.drive", f"'{shown}' has a drive letter or ':' in its path.")
    if name.startswith("/"):
        _reject("zip.absolute", f"'{shown}' is an absolute path.")
    if "\\" in name:
        _reject("zip.backslash", f"'{shown}' uses a backslash in its path; ZIP paths must use '/'.")
    if len(name) > 1024:
        _reject("zip.long_name", "A member name is longer than 1024 characters.")
    parts = tuple(name.rstrip("/").split("/"))
    if ".." in parts:
        _reject("zip.traversal", say("skill.zip_traversal", name=shown))
    if any(p in ("", ".") for p in parts):
        _reject("zip.odd_path", f"'{shown}' has an empty or '.' path segment.")
    return parts


def _check_type(info: zipfile.ZipInfo) -> None:
    if info.flag_bits & 0x1:
        _reject(
            "zip.encrypted", f"'{info.filename[:120]}' is encrypted; password-protected ZIPs are refused."
        )
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind in (0, stat.S_IFREG, stat.S_IFDIR):
        return
    if kind == stat.S_IFLNK:
        _reject("zip.symlink", say("skill.zip_symlink", name=info.filename[:120]))
    _reject("zip.special", f"'{info.filename[:120]}' is a device, pipe or socket, not a file.")


def _is_junk(parts: tuple[str, ...]) -> bool:
    return parts[0] in _JUNK_DIRS or parts[-1] in _JUNK_FILES


def _key(parts: tuple[str, ...]) -> str:
    # Case-folded NFC: two names that map to one file on macOS/Windows are duplicates.
    return unicodedata.normalize("NFC", "/".join(parts)).casefold()


def _check_duplicates(members: list[_Member]) -> None:
    files: set[str] = set()
    dirs: set[str] = set()
    for member in members:
        key = _key(member.parts)
        if member.is_dir:
            dirs.add(key)
        elif key in files:
            _reject("zip.duplicate", f"'{member.info.filename[:120]}' appears twice in the ZIP.")
        else:
            files.add(key)
        for depth in range(1, len(member.parts)):
            dirs.add(_key(member.parts[:depth]))
    clash = files & dirs
    if clash:
        _reject("zip.duplicate", f"'{sorted(clash)[0][:120]}' is both a file and a folder in the ZIP.")


def _strip_prefix(members: list[_Member]) -> list[_Member]:
    """Find the package root: SKILL.md at the top, or inside exactly one top-level folder."""
    top_files = {m.parts[0] for m in members if len(m.parts) == 1 and not m.is_dir}
    if SKILL_FILE in top_files:
        return members
    tops = sorted({m.parts[0] for m in members})
    if len(tops) > 1:
        packages = [t for t in tops if any(m.parts[1:] == (SKILL_FILE,) for m in members if m.parts[0] == t)]
        if len(packages) == 1:
            beside = [t for t in tops if t != packages[0]]
            listed = ", ".join(beside[:10]) + (f" and {len(beside) - 10} more" if len(beside) > 10 else "")
            _reject(
                "zip.layout",
                f"The ZIP has files beside its Skill folder '{packages[0]}/': {listed}. "
                "Put them inside the folder or remove them.",
            )
        listed = ", ".join(tops[:5])
        _reject("zip.layout", say("skill.zip_layout", entries=listed))
    has_skill = any(m.parts[1:] == (SKILL_FILE,) and not m.is_dir for m in members)
    if not tops or top_files or not has_skill:
        _reject("zip.no_skill_md", say("skill.zip_no_skill_md"))
    return [_Member(m.info, m.parts[1:], m.is_dir) for m in members if len(m.parts) > 1]


def plan_members(archive: zipfile.ZipFile, limits: ArchiveLimits) -> list[_Member]:
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        _reject("zip.members", say("skill.zip_members", count=len(infos), max=limits.max_members))
    members: list[_Member] = []
    declared = 0
    for info in infos:
        parts = _check_name(info.filename)
        _check_type(info)
        if _is_junk(parts):
            continue
        if info.file_size > limits.max_file_bytes:
            _reject(
                "zip.file_size", f"'{info.filename[:120]}' is larger than {limits.max_file_bytes // MiB} MiB."
            )
        declared += info.file_size
        members.append(_Member(info, parts, info.is_dir()))
    if declared > limits.max_total_bytes:
        _reject("zip.expanded_size", say("skill.zip_too_large", max=limits.max_total_bytes // MiB))
    _check_duplicates(members)
    return _strip_prefix(members)


def _chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    try:
        with archive.open(info) as source:
            while chunk := source.read(_CHUNK):
                yield chunk
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, ValueError) as exc:
        _reject(
            "zip.corrupt", f"'{info.filename[:120]}' cannot be read ({type(exc).__name__}: {str(exc)[:80]})."
        )
    except OSError as exc:  # bz2 reports bad data as OSError; the ZIP is the only file read here
        _reject("zip.corrupt", f"'{info.filename[:120]}' cannot be read ({exc.strerror or exc}).")


class _Budget:
    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.total = 0

    def take(self, info: zipfile.ZipInfo, written: int, size: int) -> None:
        self.total += size
        if written > self.limits.max_file_bytes:
            _reject(
                "zip.file_size",
                f"'{info.filename[:120]}' expands past {self.limits.max_file_bytes // MiB} MiB.",
            )
        if self.total > self.limits.max_total_bytes:
            _reject(
                "zip.bomb",
                f"The ZIP expands past {self.limits.max_total_bytes // MiB} MiB (compression bomb).",
            )


def _extract_file(archive: zipfile.ZipFile, member: _Member, target: Path, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with target.open("xb") as sink:
        for chunk in _chunks(archive, member.info):
            written += len(chunk)
            budget.take(member.info, written, len(chunk))
            sink.write(chunk)
    if written != member.info.file_size:
        _reject(
            "zip.size_mismatch", f"'{member.info.filename[:120]}' does not have the size its header claims."
        )
    if (member.info.external_attr >> 16) & 0o111:
        os.chmod(target, 0o755)  # keep scripts runnable; nothing else is carried over


def extract_archive(zip_path: Path, dest: Path, limits: ArchiveLimits) -> None:
    """Unpack the one package in `zip_path` into `dest` (which must not exist yet)."""
    try:
        st = zip_path.stat()
    except OSError as exc:
        _reject("zip.unreadable", say("skill.zip_unreadable", reason=exc.strerror or exc))
    if not stat.S_ISREG(st.st_mode):
        # A FIFO would block the open forever and /dev/zero never ends: refuse before opening.
        _reject("zip.not_file", f"'{zip_path}' is not a regular file, so it cannot be a ZIP archive.")
    size = st.st_size
    if size > limits.max_archive_bytes:
        _reject(
            "zip.archive_size",
            f"The ZIP is {size} bytes; the limit is {limits.max_archive_bytes // MiB} MiB.",
        )
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        _reject("zip.not_zip", say("skill.zip_not_zip", reason=str(exc)[:80]))
    with archive:
        members = plan_members(archive, limits)
        dest.mkdir(parents=False, exist_ok=False)
        budget = _Budget(limits)
        root = os.path.realpath(dest)
        for member in members:
            target = dest.joinpath(*member.parts)
            if not os.path.realpath(target).startswith(root + os.sep):
                _reject("zip.traversal", f"'{member.info.filename[:120]}' would land outside the Skill.")
            if member.is_dir:
                target.mkdir(parents=True, exist_ok=True)
            else:
                _extract_file(archive, member, target, budget)


def export_package(package_dir: Path, name: str, out_path: Path) -> None:
    """Deterministic ZIP: `name/` prefix, sorted entries, fixed dates and modes.

    Links to files are stored as the file's bytes (import refuses links); links to folders are
    skipped, since following them could loop."""
    with zipfile.ZipFile(out_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for current, dirs, files in os.walk(package_dir):
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(current, d)))
            rel_dir = Path(os.path.relpath(current, package_dir)).as_posix()
            prefix = f"{name}/" if rel_dir == "." else f"{name}/{rel_dir}/"
            dir_info = zipfile.ZipInfo(prefix, date_time=_FIXED_DATE)
            dir_info.create_system = 3
            dir_info.external_attr = ((stat.S_IFDIR | 0o755) << 16) | 0x10
            archive.writestr(dir_info, b"")
            for file_name in sorted(files):
                _write_file(archive, Path(current) / file_name, prefix + file_name)


def _write_file(archive: zipfile.ZipFile, path: Path, arcname: str) -> None:
    info = zipfile.ZipInfo(arcname, date_time=_FIXED_DATE)
    info.create_system = 3
    info.compress_type = zipfile.ZIP_DEFLATED
    mode = 0o755 if os.stat(path).st_mode & stat.S_IXUSR else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.file_size = os.stat(path).st_size
    with path.open("rb") as source, archive.open(info, "w") as sink:
        while chunk := source.read(_CHUNK):
            sink.write(chunk)
