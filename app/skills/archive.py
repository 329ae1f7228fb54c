"""Safe Skill ZIP import (SPEC S7.5) and deterministic export.

The hostile-archive rules are shared with MCP Bundles (app/support/ziparchive.py); this module
adds where a Skill's root is (SKILL.md at the top or in its one folder) and the export."""

from __future__ import annotations

import contextlib
import os
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from app.contracts.errors import say
from app.skills.model import MAX_SKILL_MD_BYTES, SKILL_FILE, ArchiveRejected, SkillProblem
from app.support import ziparchive as shared
from app.support.ziparchive import ArchiveLimits, ArchiveRefused, Member, MiB

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)
_CHUNK = 64 * 1024
_WHAT = "Skill"

__all__ = ["MiB", "ArchiveLimits", "export_package", "extract_archive", "plan_members"]


def _reject(rule: str, message: str) -> NoReturn:
    raise ArchiveRejected(SkillProblem(rule, message))


def _listed(key: str, names: list[str], **params: str) -> str:
    """`key` naming the first ten `names`; past ten, its `_more` form says how many more."""
    entries = ", ".join(names[:10])
    if len(names) > 10:
        return say(f"{key}_more", entries=entries, more=len(names) - 10, **params)
    return say(key, entries=entries, **params)


@contextlib.contextmanager
def _as_skill_problem() -> Iterator[None]:
    """The shared rules (app/support/ziparchive.py) say why; a Skill import reports it as a
    SkillProblem."""
    try:
        yield
    except ArchiveRefused as exc:
        raise ArchiveRejected(SkillProblem(exc.rule, say(exc.key, **exc.params))) from None


def _strip_prefix(members: list[Member]) -> list[Member]:
    """Find the package root: SKILL.md at the top, or inside exactly one top-level folder."""
    top_files = {m.parts[0] for m in members if len(m.parts) == 1 and not m.is_dir}
    if SKILL_FILE in top_files:
        return members
    tops = sorted({m.parts[0] for m in members})
    if len(tops) > 1:
        packages = [t for t in tops if any(m.parts[1:] == (SKILL_FILE,) for m in members if m.parts[0] == t)]
        if len(packages) == 1:
            beside = [t for t in tops if t != packages[0]]
            _reject("zip.layout", _listed("skill.zip_beside_folder", beside, folder=packages[0]))
        listed = ", ".join(tops[:5])
        _reject("zip.layout", say("skill.zip_layout", entries=listed))
    has_skill = any(m.parts[1:] == (SKILL_FILE,) and not m.is_dir for m in members)
    if not tops or top_files or not has_skill:
        _reject("zip.no_skill_md", say("skill.zip_no_skill_md"))
    return [Member(m.info, m.parts[1:], m.is_dir) for m in members if len(m.parts) > 1]


def plan_members(archive: zipfile.ZipFile, limits: ArchiveLimits) -> list[Member]:
    with _as_skill_problem():
        members = shared.plan_members(archive, limits, _WHAT)
    package = _strip_prefix(members)
    if package is members:
        _refuse_stray_root_files(archive, members)
    return package


def _refuse_stray_root_files(archive: zipfile.ZipFile, members: list[Member]) -> None:
    """A flat ZIP (SKILL.md at its root) has no folder to tell the package from what was zipped
    beside it, so a root file SKILL.md never names (a README.md, notes.txt) is refused as a
    file beside the Skill, as in the wrapped form. Files the SKILL.md names (`reference.md`,
    in anthropics/skills packages), licence files and folders (`scripts/`, …) stay."""
    skill = next(m for m in members if m.parts == (SKILL_FILE,))
    if skill.info.file_size > MAX_SKILL_MD_BYTES:
        return  # refused by the validation with its own reason
    with _as_skill_problem():
        text = shared.read_member(archive, skill, MAX_SKILL_MD_BYTES).decode("utf-8", errors="replace")
    stray = sorted(
        m.parts[0]
        for m in members
        if len(m.parts) == 1
        and not m.is_dir
        and m.parts[0] != SKILL_FILE
        and m.parts[0] not in text
        and not m.parts[0].upper().startswith(("LICENSE", "NOTICE"))
    )
    if stray:
        _reject("zip.layout", _listed("skill.zip_beside_skill_md", stray))


def extract_archive(zip_path: Path, dest: Path, limits: ArchiveLimits) -> None:
    """Unpack the one package in `zip_path` into `dest` (which must not exist yet)."""
    with _as_skill_problem():
        archive = shared.open_archive(zip_path, limits)
    with archive:
        members = plan_members(archive, limits)
        with _as_skill_problem():
            shared.extract_members(archive, members, dest, limits, _WHAT)


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
