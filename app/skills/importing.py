"""Import preview and import from a ZIP, a folder or uploaded bytes; create from SKILL.md text;
export to bytes. Everything goes through `SkillStore` (staging + one rename)."""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path

from app.contracts.errors import say
from app.skills import api_models as am
from app.skills.archive import extract_archive
from app.skills.fsutil import atomic_write_bytes, copy_tree
from app.skills.manifest import advisory_warnings
from app.skills.model import SKILL_FILE, SkillConflict, SkillInvalid, SkillNotFound
from app.skills.resources import list_package_files
from app.skills.store import InstalledSkill, SkillStore
from app.skills.validate import validate_package

PREVIEW_FILES = 200


@dataclass(frozen=True)
class ImportSource:
    """Exactly one of: a path (a .zip or a folder holding SKILL.md) or uploaded ZIP bytes."""

    path: Path | None = None
    data: bytes | None = None


class SkillImporter:
    def __init__(self, store: SkillStore) -> None:
        self._store = store

    def _stage(self, source: ImportSource, work: Path) -> Path:
        """Put the package into `work/package` (the archive checks apply to ZIPs)."""
        package = work / "package"
        if source.data is not None:
            upload = work / "upload.zip"
            atomic_write_bytes(upload, source.data)
            extract_archive(upload, package, self._store.limits)
            return package
        assert source.path is not None
        path = source.path
        if path.is_dir():
            if not (path / SKILL_FILE).is_file():
                raise SkillNotFound(say("skill.no_skill_md"))
            copy_tree(path, package)
            return package
        if path.suffix.lower() != ".zip" and path.name != SKILL_FILE:
            raise SkillInvalid("Only a .zip file or a folder holding SKILL.md can be imported.", ())
        if path.name == SKILL_FILE:
            copy_tree(path.parent, package)
            return package
        extract_archive(path, package, self._store.limits)
        return package

    def preview(self, source: ImportSource) -> am.SkillImportPreview:
        with self._store.staging_dir() as work:
            package = self._stage(source, work)
            files, total = list_package_files(package, PREVIEW_FILES)
            size = sum(os.path.getsize(package / f) for f in list_package_files(package, 100_000)[0])
            checked = validate_package(package, check_folder=False)
            if checked.kind == "invalid":
                return am.SkillImportPreview(
                    valid=False,
                    name=None,
                    display_name=None,
                    description=None,
                    files=files,
                    file_count=total,
                    size=size,
                    warnings=[],
                    problems=[am.SkillProblemView(rule=p.rule, message=p.message) for p in checked.problems],
                    conflict=None,
                )
            doc = checked.document
            return am.SkillImportPreview(
                valid=True,
                name=doc.manifest.name,
                display_name=doc.manifest.display_name,
                description=doc.manifest.description,
                files=files,
                file_count=total,
                size=size,
                warnings=advisory_warnings(doc.manifest, doc.body),
                problems=[],
                conflict=self._conflict(doc.manifest.name),
            )

    def _conflict(self, name: str) -> str | None:
        try:
            self._store.check_name_free(name)
        except SkillConflict as exc:
            return str(exc)
        return None

    def install(self, source: ImportSource) -> InstalledSkill:
        with self._store.staging_dir() as work:
            return self._store.install_folder(self._stage(source, work), "user")

    def create_from_text(self, content: str) -> InstalledSkill:
        with self._store.staging_dir() as work:
            package = work / "package"
            package.mkdir()
            atomic_write_bytes(package / SKILL_FILE, content.encode("utf-8"))
            return self._store.install_folder(package, "user")

    def validate_installed(self, name: str) -> am.SkillValidation:
        entry = self._store.entry(name)
        checked = validate_package(entry.path)
        if checked.kind == "invalid":
            problems = [am.SkillProblemView(rule=p.rule, message=p.message) for p in checked.problems]
            return am.SkillValidation(name=name, valid=False, problems=problems, warnings=[])
        doc = checked.document
        return am.SkillValidation(
            name=name, valid=True, problems=[], warnings=advisory_warnings(doc.manifest, doc.body)
        )

    def export_bytes(self, name: str) -> am.SkillExport:
        entry = self._store.entry(name)
        with self._store.staging_dir() as work:
            out = self._store.export(entry.name, work / f"{entry.name}.zip")
            data = out.read_bytes()
        return am.SkillExport(
            filename=f"{entry.name}.zip", data_base64=base64.b64encode(data).decode("ascii")
        )
