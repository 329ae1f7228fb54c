"""The catalog: every Skill in every source, with shadowing, enabled state and diagnostics."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from app.skills.model import (
    SKILL_FILE,
    WRITABLE_SOURCES,
    SkillManifest,
    SkillProblem,
    SourceKind,
    ValidationResult,
)
from app.skills.redact import Redactor
from app.skills.sources import SkillRoot, SkillRoots, package_names, root_problem
from app.skills.state import SkillStateFile
from app.skills.validate import validate_package

MAX_REASON_CHARS = 240
MAX_PROBLEMS = 3
MAX_DIR_NAME_CHARS = 80


@dataclass(frozen=True)
class SkillRef:
    source: SourceKind
    path: Path


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    source: SourceKind
    path: Path
    manifest: SkillManifest
    sha256: str
    enabled: bool
    shadows: tuple[SkillRef, ...] = ()
    shadowed_by: SkillRef | None = None
    headings: tuple[str, ...] = ()  # of the SKILL.md body, for search

    @property
    def active(self) -> bool:
        return self.shadowed_by is None

    @property
    def selectable(self) -> bool:
        return self.active and self.enabled

    @property
    def writable(self) -> bool:
        return self.source in WRITABLE_SOURCES


@dataclass(frozen=True)
class SkillDiagnostic:
    """An invalid package: listed for the user, never selectable, never shadows anything."""

    source: SourceKind
    dir_name: str
    path: Path
    display_path: str
    problems: tuple[SkillProblem, ...]
    reason: str


@dataclass(frozen=True)
class CatalogSnapshot:
    revision: int
    entries: tuple[CatalogEntry, ...]
    diagnostics: tuple[SkillDiagnostic, ...]

    def active(self) -> tuple[CatalogEntry, ...]:
        return tuple(e for e in self.entries if e.active)

    def get(self, name: str) -> CatalogEntry | None:
        return next((e for e in self.entries if e.name == name and e.active), None)

    def names(self) -> frozenset[str]:
        return frozenset(e.name for e in self.entries)


@dataclass(frozen=True)
class _Walked:
    """One step of a refresh's walk: a root's problem (`name` None, `result` its text) or one
    package folder of the root and its validation result."""

    root: SkillRoot
    name: str | None
    result: ValidationResult | str


@dataclass(frozen=True)
class _Found:
    source: SourceKind
    path: Path
    manifest: SkillManifest
    sha256: str
    headings: tuple[str, ...]


MAX_HEADINGS = 40
MAX_HEADING_CHARS = 120
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def body_headings(body: str) -> tuple[str, ...]:
    """The Markdown headings of a SKILL.md body (not the `#` lines inside code blocks), bounded."""
    found: list[str] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := _HEADING.match(line)):
            found.append(m.group(1)[:MAX_HEADING_CHARS])
            if len(found) == MAX_HEADINGS:
                break
    return tuple(found)


class SkillCatalog:
    def __init__(self, roots: SkillRoots, state: SkillStateFile, redactor: Redactor) -> None:
        self.roots = roots
        self._state = state
        self._redact = redactor
        self._lock = threading.Lock()
        self._revision = 0
        self._current: CatalogSnapshot | None = None
        # Validation results per package folder, keyed by the stat of the folder and its
        # SKILL.md: an unchanged package is not parsed again, so a refresh of 2,000 Skills is
        # a stat walk. Tools that act on a package (skill_load) still validate it in full.
        self._memo: dict[str, tuple[tuple[int, ...], ValidationResult]] = {}
        # What the last scan found (each folder's memoised result, the root problems) and the
        # disabled names: when a refresh finds exactly that again, the snapshot keeps the same
        # entries (a refresh runs on every turn; rebuilding 500 entries was most of its cost).
        self._last: tuple[list[_Walked], frozenset[str]] | None = None

    @property
    def current(self) -> CatalogSnapshot:
        return self._current or self.refresh()

    def refresh(self) -> CatalogSnapshot:
        """Rescan every root. Cheap enough to do on every change: one stat walk per package.
        Every refresh has a new revision; one that found nothing changed keeps the entries."""
        walked = self._walk()
        disabled = self._state.disabled()
        with self._lock:
            last, current = self._last, self._current
        if current is not None and last is not None and _same(last[0], walked) and last[1] == disabled:
            entries, diagnostics = current.entries, current.diagnostics
        else:
            found, problems = self._build(walked)
            entries, diagnostics = _resolve_shadowing(found, disabled), tuple(problems)
        with self._lock:
            self._revision += 1
            snapshot = CatalogSnapshot(self._revision, entries, diagnostics)
            self._current = snapshot
            self._last = (walked, disabled)
        return snapshot

    def _walk(self) -> list[_Walked]:
        """Every root's problem or its package folders with their (memoised) results, in order."""
        walked: list[_Walked] = []
        for root in self.roots.ordered():
            why = root_problem(root.path)
            if why is not None:
                walked.append(_Walked(root, None, why))
                continue
            base = os.fspath(root.path) + os.sep
            walked += [_Walked(root, name, self._validate(base + name)) for name in package_names(root.path)]
        return walked

    def _build(self, walked: list[_Walked]) -> tuple[list[_Found], list[SkillDiagnostic]]:
        found: list[_Found] = []
        diagnostics: list[SkillDiagnostic] = []
        for root, name, result in ((w.root, w.name, w.result) for w in walked):
            if isinstance(result, str) or name is None:
                problem = SkillProblem("root.invalid", str(result))
                diagnostics.append(self._diagnostic(root.source, root.path, root.path, (problem,)))
                continue
            folder = root.path / name
            if result.kind == "valid":
                doc = result.document
                found.append(_Found(root.source, folder, doc.manifest, doc.sha256, body_headings(doc.body)))
            else:
                diagnostics.append(self._diagnostic(root.source, root.path, folder, result.problems))
        return found, diagnostics

    def _validate(self, folder: str) -> ValidationResult:
        try:
            d, f = os.stat(folder), os.stat(folder + os.sep + SKILL_FILE)
            key: tuple[int, ...] | None = (
                d.st_ino,
                d.st_mtime_ns,
                f.st_ino,
                f.st_mtime_ns,
                f.st_size,
                f.st_ctime_ns,
            )
        except OSError:
            key = None
        if key is not None:
            with self._lock:
                known = self._memo.get(folder)
            if known is not None and known[0] == key:
                return known[1]
        result = validate_package(Path(folder))
        if key is not None:
            with self._lock:
                self._memo[folder] = (key, result)
        return result

    def _diagnostic(
        self, source: SourceKind, root: Path, folder: Path, problems: tuple[SkillProblem, ...]
    ) -> SkillDiagnostic:
        # Bounded and free of host paths: messages are redacted, cut, and only the first few shown.
        clean = tuple(
            SkillProblem(p.rule, _cut(self._redact(p.message), MAX_REASON_CHARS))
            for p in problems[:MAX_PROBLEMS]
        )
        reason = "; ".join(p.message for p in clean)
        if len(problems) > MAX_PROBLEMS:
            reason += f" (+{len(problems) - MAX_PROBLEMS} more)"
        name = _cut(folder.name, MAX_DIR_NAME_CHARS)
        shown = self._redact(_cut(shown_path(root, folder, self._redact.home), MAX_DIR_NAME_CHARS * 2))
        return SkillDiagnostic(source, name, folder, shown, clean, _cut(reason, MAX_REASON_CHARS))


def _same(before: list[_Walked], now: list[_Walked]) -> bool:
    """The same roots, folders and root problems, each folder with the very result object the
    memo gave last time (a changed package is validated again: a new object)."""
    return len(before) == len(now) and all(
        a.name == b.name and a.root == b.root and (a.result is b.result or a.result == b.result)
        for a, b in zip(before, now, strict=True)
    )


def shown_path(root: Path, folder: Path, home: Path | None) -> str:
    """`folder` as a diagnostic may show it: under the home folder as `~/…` (the user knows
    `~/.agents/skills`), otherwise relative to its Skills root (`.` for the root itself): the
    data folder, the install folder and the workspace are host paths a diagnostic never shows."""
    if home is not None and len(home.parts) > 1 and folder.is_relative_to(home):
        return "~/" + folder.relative_to(home).as_posix()
    return folder.relative_to(root).as_posix() if folder.is_relative_to(root) else folder.name


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _resolve_shadowing(found: list[_Found], disabled: frozenset[str]) -> tuple[CatalogEntry, ...]:
    """`found` is in precedence order (lowest first), so the last one with a name wins."""
    by_name: dict[str, list[_Found]] = {}
    for item in found:
        by_name.setdefault(item.manifest.name, []).append(item)
    entries: list[CatalogEntry] = []
    for name in sorted(by_name):
        items = by_name[name]
        winner = items[-1]
        winner_ref = SkillRef(winner.source, winner.path)
        enabled = name not in disabled
        for lower in items[:-1]:
            entries.append(
                CatalogEntry(
                    name,
                    lower.source,
                    lower.path,
                    lower.manifest,
                    lower.sha256,
                    enabled,
                    shadowed_by=winner_ref,
                    headings=lower.headings,
                )
            )
        shadows = tuple(SkillRef(i.source, i.path) for i in items[:-1])
        entries.append(
            CatalogEntry(
                name,
                winner.source,
                winner.path,
                winner.manifest,
                winner.sha256,
                enabled,
                shadows,
                headings=winner.headings,
            )
        )
    return tuple(entries)
