"""SkillStore: every change to Skills on disk goes through here.

All writes stage a complete folder or file first and publish with a rename (see publish.py).
Operations on one name hold that name's lock, so a check-then-write (hash precondition, name
conflict) cannot interleave with another writer in this process."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.contracts.errors import say
from app.skills import staging_owner
from app.skills.archive import ArchiveLimits, export_package, extract_archive
from app.skills.catalog import CatalogEntry, SkillCatalog
from app.skills.fsutil import (
    atomic_write_bytes,
    copy_tree,
    fsync_dir,
    fsync_tree,
    hidden_sibling,
    remove_tree,
)
from app.skills.locks import NameLocks
from app.skills.manifest import name_problems
from app.skills.model import (
    SKILL_FILE,
    WRITABLE_SOURCES,
    SkillConflict,
    SkillInvalid,
    SkillNotFound,
    SkillReadOnly,
    SourceKind,
    describe_problems,
)
from app.skills.publish import (
    StepHook,
    no_hook,
    publish_new,
    recover_root,
    remove_atomically,
    remove_stray_temp_files,
    swap_in,
)
from app.skills.snapshots import SkillVersion, SnapshotStore
from app.skills.sources import SkillDataPaths, package_dirs
from app.skills.state import SkillStateFile
from app.skills.validate import parse_skill_md, validate_package
from app.support.atomic import NEW_FILE_MODE, atomic_target

# A staging folder this old belongs to a crashed import, not to one still running elsewhere.
_STALE_STAGING_SECONDS = 3600


@dataclass(frozen=True)
class SkillText:
    name: str
    source: SourceKind
    content: str
    sha256: str


@dataclass(frozen=True)
class InstalledSkill:
    name: str
    source: SourceKind
    path: Path
    sha256: str


class SkillStore:
    def __init__(
        self,
        catalog: SkillCatalog,
        paths: SkillDataPaths,
        state: SkillStateFile,
        *,
        limits: ArchiveLimits | None = None,
        max_versions: int = 50,
        hook: StepHook = no_hook,
    ) -> None:
        self.catalog = catalog
        self._roots = catalog.roots
        self._paths = paths
        self._state = state
        self._snapshots = SnapshotStore(paths.snapshots, max_versions)
        self._limits = limits or ArchiveLimits()
        self._hook = hook  # tests pause here to kill the process between steps
        self._locks = NameLocks()
        self.recover()

    # -- housekeeping -------------------------------------------------------------------------

    def recover(self) -> None:
        """Finish or undo operations a crash interrupted (runs once, at start-up)."""
        for source in WRITABLE_SOURCES:
            root = self._writable_root(source)
            recover_root(root)
            for package in package_dirs(root):
                remove_stray_temp_files(package)
        self.sweep_staging()

    def sweep_staging(self) -> None:
        """Remove work folders of killed imports: at once when their owner's lock is free (the
        owner died), by age when they carry no lock (an older build, or no `fcntl`)."""
        cutoff = time.time() - _STALE_STAGING_SECONDS
        for leftover in _children(self._paths.staging):
            with contextlib.suppress(OSError):
                if leftover.name.endswith(staging_owner.LOCK_SUFFIX):
                    work = leftover.with_name(leftover.name[: -len(staging_owner.LOCK_SUFFIX)])
                    if staging_owner.orphaned(leftover):
                        remove_tree(work)
                        leftover.unlink()
                    continue
                lock = staging_owner.lock_path(leftover)
                if lock.exists():
                    continue  # decided with its lock (above)
                if leftover.stat().st_mtime < cutoff:
                    remove_tree(leftover)

    @contextlib.contextmanager
    def staging_dir(self) -> Iterator[Path]:
        """A fresh hidden work folder on the data filesystem, removed afterwards."""
        work, fd = self._new_work_dir()
        try:
            yield work
        finally:
            remove_tree(work)
            staging_owner.release(fd, staging_owner.lock_path(work))
            with contextlib.suppress(OSError):
                self._paths.staging.rmdir()  # only succeeds when no other import is running

    def _new_work_dir(self) -> tuple[Path, int | None]:
        """The work folder and the fd of its held lock. The folder is made first: a kill in
        between leaves a folder without a lock, which the sweep removes by age."""
        # Another import may remove the empty `.staging` between our mkdir and mkdtemp; retry.
        for _attempt in range(3):
            self._paths.staging.mkdir(parents=True, exist_ok=True)
            try:
                work = Path(tempfile.mkdtemp(prefix=".work-", dir=self._paths.staging))
                return work, staging_owner.hold(staging_owner.lock_path(work))
            except FileNotFoundError:
                continue
        raise FileNotFoundError(f"cannot create a staging folder in {self._paths.staging}")

    # -- lookups ------------------------------------------------------------------------------

    def _writable_root(self, source: SourceKind) -> Path:
        root = self._roots.writable(source)
        if root is None:
            raise SkillReadOnly(say("skill.source_read_only", source=source))
        return root

    def entry(self, name: str) -> CatalogEntry:
        entry = self.catalog.refresh().get(name)
        if entry is None:
            raise SkillNotFound(say("skill.not_found", name=name[:80]))
        return entry

    def _writable_entry(self, name: str) -> CatalogEntry:
        entry = self.entry(name)
        if not entry.writable:
            raise SkillReadOnly(
                say("skill.read_only", name=name, source=entry.source)
            )
        return entry

    def read(self, name: str) -> SkillText:
        entry = self.entry(name)
        raw = (entry.path / SKILL_FILE).read_bytes()
        return SkillText(name, entry.source, raw.decode("utf-8"), hashlib.sha256(raw).hexdigest())

    # -- edits --------------------------------------------------------------------------------

    def replace(self, name: str, content: str, base_sha256: str) -> SkillText:
        """Replace SKILL.md if it still has `base_sha256`; snapshot the old version first."""
        with self._locks.hold(name):
            entry = self._writable_entry(name)
            target = entry.path / SKILL_FILE
            current = target.read_bytes()
            current_sha = hashlib.sha256(current).hexdigest()
            if current_sha != base_sha256:
                raise SkillConflict(
                    say("skill.changed", name=name)
                )
            raw = content.encode("utf-8", errors="surrogatepass")
            parsed = parse_skill_md(raw, entry.path.name)
            if isinstance(parsed, list):
                raise SkillInvalid(
                    f"The new SKILL.md is not valid: {describe_problems(tuple(parsed))}", tuple(parsed)
                )
            self._snapshots.take(entry.source, name, entry.path, "replace", current_sha)
            self._hook("replace:after-snapshot")
            atomic_write_bytes(target, raw)
            self._hook("replace:after-write")
        self.catalog.refresh()
        return SkillText(name, entry.source, content, parsed.sha256)

    def set_enabled(self, name: str, enabled: bool) -> CatalogEntry:
        self.entry(name)  # unknown names are an error, not a silent no-op
        self._state.set_enabled(name, enabled)
        return self.entry(name)

    def delete(self, name: str) -> SkillVersion:
        """Delete a user/agent Skill (the caller confirms). A snapshot is taken first."""
        with self._locks.hold(name):
            entry = self._writable_entry(name)
            version = self._snapshots.take(entry.source, name, entry.path, "delete", entry.sha256)
            remove_atomically(entry.path, self._hook)
        self.catalog.refresh()
        return version

    def delete_invalid(self, source: SourceKind, dir_name: str) -> Path:
        """Move an invalid package aside to <snapshots>/invalid/<source>/<dir>-<ts>."""
        root = self._writable_root(source)
        if not dir_name or dir_name.startswith(".") or "/" in dir_name or "\\" in dir_name:
            raise SkillNotFound(say("skill.no_invalid_folder", name=dir_name[:80]))
        with self._locks.hold(dir_name):
            folder = root / dir_name
            if not folder.is_dir():
                raise SkillNotFound(say("skill.no_invalid_folder", name=dir_name[:80]))
            if validate_package(folder).kind == "valid":
                raise SkillConflict(say("skill.valid_now", name=dir_name))
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
            dest = self._paths.snapshots / "invalid" / source / f"{dir_name}-{stamp}"
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.rename(folder, dest)
            fsync_dir(root)
        self.catalog.refresh()
        return dest

    # -- install, import, export --------------------------------------------------------------

    def install_folder(self, staged: Path, source: SourceKind = "user") -> InstalledSkill:
        """Validate a complete folder in the staging area and publish it as a new Skill.
        `staged` must be inside `staging_dir()`; its own name does not matter."""
        root = self._writable_root(source)
        result = validate_package(staged, check_folder=False)
        if result.kind == "invalid":
            raise SkillInvalid(
                say("skill.invalid", reasons=describe_problems(result.problems)), result.problems
            )
        name = result.document.manifest.name
        with self._locks.hold(name):
            self._check_name_free(name)
            self._hook("install:validated")
            root.mkdir(parents=True, exist_ok=True)
            fsync_tree(staged)
            publish_new(staged, root / name, self._hook)
        self.catalog.refresh()
        return InstalledSkill(name, source, root / name, result.document.sha256)

    def update_package(self, name: str, source: SourceKind, apply: Callable[[Path], None]) -> SkillText:
        """Copy the `source` package to staging, let `apply` change the copy, validate it (the
        name must stay), snapshot the live version and swap the copy in. Nothing changes on
        any failure."""
        root = self._writable_root(source)
        with self._locks.hold(name), self.staging_dir() as work:
            target = root / name
            live = validate_package(target)
            if live.kind == "invalid":
                raise SkillNotFound(say("skill.no_valid", name=name[:80], source=source))
            staged = work / name
            copy_tree(target, staged)
            apply(staged)
            checked = validate_package(staged, folder_name=name)
            if checked.kind == "invalid":
                reasons = describe_problems(checked.problems)
                raise SkillInvalid(say("skill.invalid", reasons=reasons), checked.problems)
            self._snapshots.take(source, name, target, "replace", live.document.sha256)
            fsync_tree(staged)
            sibling = hidden_sibling(target, "stage")
            os.rename(staged, sibling)  # same filesystem as the root: staging is its sibling
            swap_in(sibling, target, self._hook)
        self.catalog.refresh()
        return self.read(name)

    @property
    def limits(self) -> ArchiveLimits:
        return self._limits

    def check_name_free(self, name: str) -> None:
        """SkillConflict when a Skill or any folder named `name` exists in any source."""
        self._check_name_free(name)

    def _check_name_free(self, name: str) -> None:
        taken = self.catalog.refresh().get(name)
        if taken is not None:
            raise SkillConflict(
                say("skill.exists", name=name, source=taken.source)
            )
        for root in self._roots.ordered():
            if os.path.lexists(root.path / name):
                raise SkillConflict(say("skill.folder_exists", name=name, source=root.source))

    def import_zip(self, zip_path: Path, source: SourceKind = "user") -> InstalledSkill:
        self._writable_root(source)
        with self.staging_dir() as work:
            package = work / "package"
            extract_archive(zip_path, package, self._limits)
            self._hook("import:extracted")
            return self.install_folder(package, source)

    def export(self, name: str, out_path: Path) -> Path:
        """Write a ZIP that imports back to the same files (any source can be exported)."""
        entry = self.entry(name)
        with atomic_target(out_path, mode=NEW_FILE_MODE) as tmp:
            export_package(entry.path, name, tmp)
        return out_path

    # -- versions -----------------------------------------------------------------------------

    def _version_source(self, name: str) -> SourceKind:
        """The live Skill's source; for a deleted Skill, the source that has snapshots of it."""
        entry = self.catalog.refresh().get(name)
        if entry is not None:
            if not entry.writable:
                raise SkillReadOnly(say("skill.no_versions_source", name=name, source=entry.source))
            return entry.source
        for source in reversed(WRITABLE_SOURCES):
            if self._snapshots.list(source, name):
                return source
        raise SkillNotFound(say("skill.no_versions", name=name[:80]))

    def versions(self, name: str) -> list[SkillVersion]:
        return self._snapshots.list(self._version_source(name), name)

    def rollback(self, name: str, version_id: str) -> SkillText:
        """Make the snapshot `version_id` the live version (or restore a deleted Skill)."""
        if name_problems(name):
            raise SkillNotFound(say("skill.not_found", name=name[:80]))
        with self._locks.hold(name):
            source = self._version_source(name)
            version = self._snapshots.get(source, name, version_id)
            checked = validate_package(version.path, folder_name=name)
            if checked.kind == "invalid":
                raise SkillInvalid(
                    f"That version is not valid: {describe_problems(checked.problems)}", checked.problems
                )
            target = self._writable_root(source) / name
            staged = hidden_sibling(target, "rollback")
            copy_tree(version.path, staged)
            self._hook("rollback:staged")
            if os.path.lexists(target):
                live = validate_package(target)
                sha = live.document.sha256 if live.kind == "valid" else None
                self._snapshots.take(source, name, target, "rollback", sha)
                swap_in(staged, target, self._hook)
            else:
                publish_new(staged, target, self._hook)
        self.catalog.refresh()
        return self.read(name)


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []
