"""Version snapshots: full folder copies under <snapshots>/<source>/<name>/<version-id>/."""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from app.contracts.errors import say
from app.skills.fsutil import atomic_write_bytes, copy_tree, fsync_dir, hidden_sibling, remove_tree
from app.skills.model import SkillNotFound, SourceKind

SnapshotReason = Literal["replace", "rollback", "delete", "manual"]
# Sortable by time; the random tail keeps two snapshots in the same microsecond apart.
_VERSION_ID = re.compile(r"^\d{8}T\d{6}\d{6}Z-[0-9a-f]{6}$")


@dataclass(frozen=True)
class SkillVersion:
    version_id: str
    created_at: str
    reason: str
    skill_md_sha256: str | None
    path: Path


def new_version_id(now: datetime | None = None) -> str:
    moment = now or datetime.now(UTC)
    return f"{moment.strftime('%Y%m%dT%H%M%S%f')}Z-{secrets.token_hex(3)}"


def is_version_id(text: str) -> bool:
    return bool(_VERSION_ID.match(text))


class SnapshotStore:
    def __init__(self, root: Path, max_versions: int = 50) -> None:
        self.root = root
        # Bounded so an agent that edits a Skill in a loop cannot fill the disk.
        self._max_versions = max_versions

    def _folder(self, source: SourceKind, name: str) -> Path:
        return self.root / source / name

    def take(
        self, source: SourceKind, name: str, package: Path, reason: SnapshotReason, sha256: str | None
    ) -> SkillVersion:
        """Copy into a hidden sibling, then rename: a listed version is always complete."""
        folder = self._folder(source, name)
        folder.mkdir(parents=True, exist_ok=True)
        version_id = new_version_id()
        final = folder / version_id
        staged = hidden_sibling(final, "stage")
        copy_tree(package, staged)
        created = datetime.now(UTC).isoformat()
        meta = {"version_id": version_id, "created_at": created, "reason": reason, "skill_md_sha256": sha256}
        # The metadata sits beside the copy, so the copy stays exactly the package's files.
        atomic_write_bytes(folder / f"{version_id}.json", json.dumps(meta).encode("utf-8"))
        os.rename(staged, final)
        fsync_dir(folder)
        self._prune(source, name)
        return SkillVersion(version_id, created, reason, sha256, final)

    def _prune(self, source: SourceKind, name: str) -> None:
        for old in self.list(source, name)[self._max_versions :]:
            remove_tree(old.path)
            (old.path.parent / f"{old.version_id}.json").unlink(missing_ok=True)

    def list(self, source: SourceKind, name: str) -> list[SkillVersion]:
        """Newest first. Half-written (dot-named) copies are skipped and swept."""
        folder = self._folder(source, name)
        try:
            children = sorted(folder.iterdir(), reverse=True)
        except OSError:
            return []
        versions: list[SkillVersion] = []
        for child in children:
            if child.name.startswith(".") and child.is_dir():
                remove_tree(child)
            elif is_version_id(child.name) and child.is_dir():
                versions.append(self._read(child))
        return versions

    def get(self, source: SourceKind, name: str, version_id: str) -> SkillVersion:
        path = self._folder(source, name) / version_id
        if not is_version_id(version_id) or not path.is_dir():
            raise SkillNotFound(say("skill.version_not_found", name=name, version=version_id[:80]))
        return self._read(path)

    def _read(self, path: Path) -> SkillVersion:
        meta: dict[str, object] = {}
        try:
            loaded = json.loads((path.parent / f"{path.name}.json").read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                meta = loaded
        except (OSError, ValueError):
            pass  # metadata is a convenience; the copy itself is the version
        sha = meta.get("skill_md_sha256")
        created = meta.get("created_at")
        reason = meta.get("reason")
        return SkillVersion(
            version_id=path.name,
            created_at=created if isinstance(created, str) else path.name,
            reason=reason if isinstance(reason, str) else "unknown",
            skill_md_sha256=sha if isinstance(sha, str) else None,
            path=path,
        )
