"""Where Skills live. Every root is passed in; `default_roots` is the only place that knows
the conventional locations, and it takes the home, data and workspace folders as arguments."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the model module costs ~10 ms of dataclass builds that `ask` never uses
    from app.skills.model import SourceKind

STAGING_DIR_NAME = ".staging"


@dataclass(frozen=True)
class SkillRoot:
    source: SourceKind
    path: Path


@dataclass(frozen=True)
class SkillRoots:
    """Roots by source. Within `external`, a later root shadows an earlier one."""

    builtin: tuple[Path, ...]
    external: tuple[Path, ...]
    user: Path
    agent: Path

    def ordered(self) -> tuple[SkillRoot, ...]:
        """Lowest precedence first."""
        return (
            *(SkillRoot("builtin", p) for p in self.builtin),
            *(SkillRoot("external", p) for p in self.external),
            SkillRoot("user", self.user),
            SkillRoot("agent", self.agent),
        )

    def writable(self, source: SourceKind) -> Path | None:
        if source == "user":
            return self.user
        if source == "agent":
            return self.agent
        return None

    def watched(self) -> tuple[Path, ...]:
        """Roots that can change while the app runs (builtin ships with the app)."""
        return (*self.external, self.user, self.agent)


@dataclass(frozen=True)
class SkillDataPaths:
    """Store-owned folders. `staging` is a sibling of the user/agent roots: the same filesystem
    (so publishing is one rename) but outside every watched root (so the watcher never sees a
    half-extracted tree)."""

    staging: Path
    snapshots: Path
    state_file: Path

    @classmethod
    def from_data_dir(cls, data_dir: Path) -> SkillDataPaths:
        return cls(
            staging=data_dir / "skills" / STAGING_DIR_NAME,
            snapshots=data_dir / "skill-snapshots",
            state_file=data_dir / "skills" / "state.json",
        )


def default_builtin_dir() -> Path:
    """`resources/skills` in a source checkout. Packaged builds pass their own path instead."""
    return Path(__file__).resolve().parents[2] / "resources" / "skills"


def default_roots(
    data_dir: Path, home: Path, workspace: Path | None, builtin_dir: Path | None = None
) -> SkillRoots:
    external = [home / ".agents" / "skills", home / ".claude" / "skills"]
    if workspace is not None:
        external.append(workspace / ".agents" / "skills")
    return SkillRoots(
        builtin=(builtin_dir or default_builtin_dir(),),
        external=tuple(external),
        user=data_dir / "skills" / "user",
        agent=data_dir / "skills" / "agent",
    )


def package_dirs(root: Path) -> Iterator[Path]:
    """Candidate package folders: direct children that are folders, or links (which the
    validation refuses with a diagnostic). Dot-named entries are skipped: they are our temp
    siblings, or hidden on purpose."""
    for name in package_names(root):
        yield root / name


def package_names(root: Path) -> list[str]:
    """The names of `package_dirs(root)`, by name. One directory read: each entry's type comes
    with it (no stat per child); the catalog refresh that runs on every turn walks these."""
    try:
        if root.is_symlink():  # the catalog reports it; a linked root lends no Skills
            return []
        with os.scandir(root) as it:
            children = sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError:  # a missing or unreadable root simply has no Skills
        return []
    names = []
    for child in children:
        try:
            if child.is_symlink() or child.is_dir():
                names.append(child.name)
        except OSError:
            continue
    return names


def root_problem(root: Path) -> str | None:
    """Why an existing Skills root cannot hold Skills (None: fine, or simply absent)."""
    try:
        if root.is_symlink():
            return "The Skills folder is a symbolic link; links are refused."
        if root.exists() and not root.is_dir():
            return "The Skills folder is not a folder (it is a file)."
        if root.is_dir():
            os.scandir(root).close()  # an unreadable root would otherwise hide its Skills silently
    except PermissionError:
        return "The Skills folder cannot be read (permission denied): its Skills are not listed."
    except OSError as exc:
        return f"The Skills folder cannot be read ({type(exc).__name__})."
    return None


def protected_skill_roots(
    data_dir: Path, home: Path, workspace: Path | None, builtin_dir: Path | None = None
) -> tuple[Path, ...]:
    """Every folder generic write/edit/exec tools must refuse: all Skill roots of every source
    (builtin, external incl. the workspace's `.agents/skills`, user, agent) and the store's own
    folders (staging, snapshots). Only the Skill store writes there."""
    roots = default_roots(data_dir, home, workspace, builtin_dir)
    paths = SkillDataPaths.from_data_dir(data_dir)
    found = [r.path for r in roots.ordered()] + [paths.staging, paths.snapshots]
    return tuple(dict.fromkeys(found))
