"""Builders shared by the Skills tests: packages on disk, ZIPs and a wired store."""

from __future__ import annotations

import hashlib
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from app.skills.catalog import SkillCatalog
from app.skills.publish import StepHook, no_hook
from app.skills.sources import SkillDataPaths, SkillRoots
from app.skills.store import SkillStore
from app.skills.wiring import SkillServices, build_skill_services

REPO = Path(__file__).resolve().parents[2]


def skill_md(
    name: str = "demo",
    description: str = "Does demo things.",
    extra: str = "",
    body: str = "# Demo\n\nDo the steps.\n",
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}"


def write_skill(
    root: Path, name: str, text: str | None = None, files: dict[str, bytes] | None = None
) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text if text is not None else skill_md(name), encoding="utf-8")
    for rel, data in (files or {}).items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


def tree_digest(root: Path) -> dict[str, str]:
    """Relative path -> sha256 for every file; '<dir>' for every folder (empty ones included)."""
    result: dict[str, str] = {}
    for current, dirs, files in os.walk(root):
        for d in dirs:
            result[Path(os.path.relpath(os.path.join(current, d), root)).as_posix() + "/"] = "<dir>"
        for f in files:
            full = os.path.join(current, f)
            with open(full, "rb") as handle:
                result[Path(os.path.relpath(full, root)).as_posix()] = hashlib.sha256(
                    handle.read()
                ).hexdigest()
    return result


def listing(root: Path) -> set[str]:
    """Every path under root (files, folders, links), for 'nothing else was written' checks."""
    found: set[str] = set()
    for current, dirs, files in os.walk(root):
        for entry in [*dirs, *files]:
            found.add(os.path.relpath(os.path.join(current, entry), root))
    return found


def zip_folder(folder: Path, out: Path, prefix: str | None = None) -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for current, _dirs, files in os.walk(folder):
            for f in sorted(files):
                full = Path(current) / f
                rel = full.relative_to(folder).as_posix()
                archive.write(full, f"{prefix}/{rel}" if prefix else rel)
    return out


@dataclass
class Env:
    data_dir: Path
    home: Path
    workspace: Path
    builtin: Path
    services: SkillServices

    @property
    def roots(self) -> SkillRoots:
        return self.services.roots

    @property
    def paths(self) -> SkillDataPaths:
        return self.services.paths

    @property
    def catalog(self) -> SkillCatalog:
        return self.services.catalog

    @property
    def store(self) -> SkillStore:
        return self.services.store


def make_env(base: Path, hook: StepHook = no_hook) -> Env:
    data_dir, home, workspace, builtin = base / "data", base / "home", base / "ws", base / "builtin"
    for folder in (data_dir, home, workspace, builtin):
        folder.mkdir(parents=True, exist_ok=True)
    services = build_skill_services(data_dir, home, workspace, builtin_dir=builtin, hook=hook)
    return Env(data_dir, home, workspace, builtin, services)
