"""Hot reload for long-lived surfaces: watch the Skill roots, publish `skills_changed`.

Only the desktop app and `cashcode serve` start it (`CashCodeApp.start_background`); a one-shot
CLI command never pays for a watcher.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.contracts.events import AppEvent
from app.skills.events import SkillsChanged

if TYPE_CHECKING:
    from app.skills.watcher import SkillWatcher
    from app.skills.wiring import SkillServices


class SkillsWatch:
    def __init__(
        self,
        *,
        data_dir: Path,
        home: Path,
        workspace: Callable[[], Path],
        publish: Callable[[AppEvent], None],
        force_polling: bool = False,
    ) -> None:
        self._data_dir = data_dir
        self._home = home
        self._workspace = workspace
        self._publish = publish
        self._force_polling = force_polling
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self.running:
            return
        from app.skills.wiring import build_skill_services  # skills load only when watched

        services = build_skill_services(self._data_dir, self._home, self._workspace())
        baseline = services.catalog.refresh().revision
        watcher = services.watcher(self._changed, force_polling=self._force_polling)
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._run(watcher, services, baseline), name="skills-watch")

    async def _run(self, watcher: SkillWatcher, services: SkillServices, baseline: int) -> None:
        run = asyncio.create_task(watcher.run(self._stop))
        try:
            # Changes made between the baseline scan and the watch being armed produce no file
            # event; one rescan once armed closes that window.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watcher.ready.wait(), timeout=5.0)
            revision = await asyncio.to_thread(lambda: services.catalog.refresh().revision)
            if revision != baseline:
                self._changed(revision)
            await run
        finally:
            if not run.done():
                run.cancel()

    def _changed(self, revision: int) -> None:
        self._publish(SkillsChanged(revision=revision))

    async def stop(self) -> None:
        if self._task is None:
            return
        self._stop.set()
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(self._task, timeout=2.0)
        if not self._task.done():
            self._task.cancel()
        self._task = None
