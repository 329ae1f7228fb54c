"""Hot reload: watch the Skill roots with watchfiles and rescan on any change.

Change kinds are not trusted (watchfiles reports some creations as modifications); any
relevant batch triggers a full rescan. Missing roots are not watched through their parents
(a missing `~/.claude/skills` would mean watching all of `~` recursively); instead the watch
wakes every `rearm_ms` and re-arms when the set of existing roots changes."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import stat
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from pathlib import Path

from watchfiles import Change, DefaultFilter, awatch
from watchfiles.main import FileChange

from app.skills.sources import STAGING_DIR_NAME

log = logging.getLogger(__name__)

OnChange = Callable[[int], Awaitable[None] | None]
Rescan = Callable[[], int]  # rescans the catalog, returns the new revision
WatchFn = Callable[..., AsyncGenerator[set[FileChange], None]]  # watchfiles.awatch's shape


class SkillFilter(DefaultFilter):
    """Drops editor/temp files and our own hidden work folders (dot-named children of a root)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        super().__init__()
        self._roots = tuple(str(r) for r in roots)

    def __call__(self, change: Change, path: str) -> bool:
        if not super().__call__(change, path):
            return False
        if path.endswith((".tmp", ".part", "~")) or f"{os.sep}{STAGING_DIR_NAME}" in path:
            return False
        for root in self._roots:
            if path.startswith(root + os.sep):
                first = path[len(root) + 1 :].split(os.sep, 1)[0]
                return not first.startswith(".")
        return True


class SkillWatcher:
    def __init__(
        self,
        roots: Sequence[Path],
        rescan: Rescan,
        on_change: OnChange,
        *,
        force_polling: bool = False,
        step_ms: int = 50,
        debounce_ms: int = 400,
        rearm_ms: int = 300,
        poll_delay_ms: int = 300,
        watch_fn: WatchFn = awatch,
    ) -> None:
        self._roots = tuple(roots)
        self._rescan = rescan
        self._on_change = on_change
        self.polling = force_polling
        self._step = step_ms
        self._debounce = debounce_ms
        self._rearm = rearm_ms
        self._poll_delay = poll_delay_ms
        self._watch_fn = watch_fn
        # Set once a watch is armed (the first wake-up of the watcher), so callers and tests
        # know that later changes will be seen.
        self.ready = asyncio.Event()

    def _existing(self) -> tuple[Path, ...]:
        return tuple(r for r, _ in self._identity())

    def _identity(self) -> tuple[tuple[Path, tuple[int, int]], ...]:
        """Existing roots with their inode: a root deleted and re-created between two wake-ups
        is a different folder, and the old native watch would not see into it."""
        found: list[tuple[Path, tuple[int, int]]] = []
        for root in self._roots:
            try:
                info = root.stat()
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                found.append((root, (info.st_dev, info.st_ino)))
        return tuple(found)

    async def _changed(self) -> None:
        # Broad on purpose: the callback belongs to someone else, and one failing refresh or
        # subscriber must not end hot reload for the rest of the session.
        try:
            revision = await asyncio.to_thread(self._rescan)
            result = self._on_change(revision)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("skills refresh after a change failed")

    async def run(self, stop: asyncio.Event) -> None:
        """Watch until `stop` is set. Never raises for filesystem trouble; it degrades instead."""
        while not stop.is_set():
            identity = self._identity()
            armed = tuple(root for root, _ in identity)
            if not armed:
                self.ready.set()  # nothing to watch yet; root creation is polled for below
                await _wait(stop, self._rearm / 1000)
                if self._existing():
                    await self._changed()  # a root appeared, maybe already full of Skills
                continue
            try:
                rearm = await self._watch(identity, stop)
            except FileNotFoundError:
                continue  # a root vanished while arming; the next pass arms what is left
            except OSError as exc:  # inotify limits and friends: poll instead (tech-notes §6)
                if self.polling:
                    log.warning("skill watcher failed while polling: %s", exc)
                    await _wait(stop, 1.0)
                else:
                    log.warning("skill watcher falls back to polling: %s", exc)
                    self.polling = True
                continue
            if rearm:
                await self._changed()

    async def _watch(self, identity: tuple[tuple[Path, tuple[int, int]], ...], stop: asyncio.Event) -> bool:
        """One armed watch. Returns True when the set of existing roots changed."""
        armed = tuple(root for root, _ in identity)
        changes = self._watch_fn(
            *armed,
            watch_filter=SkillFilter(armed),
            stop_event=stop,
            step=self._step,
            debounce=self._debounce,
            rust_timeout=self._rearm,
            yield_on_timeout=True,
            force_polling=self.polling,
            poll_delay_ms=self._poll_delay,
        )
        async with contextlib.aclosing(changes):
            async for batch in changes:
                self.ready.set()
                # A root deleted and re-created may get its old inode number back, so an event
                # on a root itself also re-arms a native watch (which died with the folder).
                # Polling re-reads paths anyway and reports every root mtime change: skip it.
                root_event = not self.polling and any(Path(p) in armed for _, p in batch)
                if root_event or self._identity() != identity:
                    return True
                if batch:
                    await self._changed()
        return False


async def _wait(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
