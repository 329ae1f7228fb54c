"""Build the Skills objects from three folders. The app's composition root and the CLI both
use this, so the two cannot drift apart; nothing here is global."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.skills.archive import ArchiveLimits
from app.skills.catalog import SkillCatalog
from app.skills.publish import StepHook, no_hook
from app.skills.redact import Redactor
from app.skills.sources import SkillDataPaths, SkillRoots, default_roots
from app.skills.state import SkillStateFile
from app.skills.store import SkillStore

if TYPE_CHECKING:
    from app.skills.watcher import OnChange, SkillWatcher


@dataclass(frozen=True)
class SkillServices:
    roots: SkillRoots
    paths: SkillDataPaths
    catalog: SkillCatalog
    store: SkillStore

    def watcher(self, on_change: OnChange, *, force_polling: bool = False) -> SkillWatcher:
        """A watcher over the external, user and agent roots; run it with `await w.run(stop)`."""
        from app.skills.watcher import SkillWatcher  # watchfiles/anyio only when watching

        return SkillWatcher(
            self.roots.watched(),
            lambda: self.catalog.refresh().revision,
            on_change,
            force_polling=force_polling,
        )


def build_skill_services(
    data_dir: Path,
    home: Path,
    workspace: Path | None,
    *,
    builtin_dir: Path | None = None,
    limits: ArchiveLimits | None = None,
    hook: StepHook = no_hook,
) -> SkillServices:
    roots = default_roots(data_dir, home, workspace, builtin_dir)
    paths = SkillDataPaths.from_data_dir(data_dir)
    state = SkillStateFile(paths.state_file)
    catalog = SkillCatalog(roots, state, Redactor(home))
    store = SkillStore(catalog, paths, state, limits=limits, hook=hook)
    return SkillServices(roots, paths, catalog, store)
