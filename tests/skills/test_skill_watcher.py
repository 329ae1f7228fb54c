"""Hot reload (SPEC S7.7): changes under the roots reach the catalog and the callback."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from watchfiles import Change, awatch

from app.skills.catalog import CatalogSnapshot
from app.skills.watcher import SkillFilter, SkillWatcher

from .helpers import Env, skill_md, write_skill

RELOAD_BOUND = 1.0  # SPEC: the catalog refreshes within a second
SLOW_BOUND = 5.0  # for re-arming after a root appears or vanishes


class Recorder:
    def __init__(self, env: Env) -> None:
        self.env = env
        self.revisions: list[int] = []
        self.changed = asyncio.Event()

    def on_change(self, revision: int) -> None:
        self.revisions.append(revision)
        self.changed.set()

    async def until(self, check: Callable[[CatalogSnapshot], bool], bound: float = RELOAD_BOUND) -> None:
        """Bounded wait for a callback after which the catalog satisfies `check`."""

        async def loop() -> None:
            while not check(self.env.catalog.current):
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(loop(), timeout=bound)


@asynccontextmanager
async def watching(env: Env, **options: Any) -> AsyncIterator[tuple[Recorder, SkillWatcher]]:
    recorder = Recorder(env)
    env.catalog.refresh()
    watcher = SkillWatcher(
        env.roots.watched(), lambda: env.catalog.refresh().revision, recorder.on_change, **options
    )
    stop = asyncio.Event()
    task = asyncio.create_task(watcher.run(stop))
    await asyncio.wait_for(watcher.ready.wait(), timeout=SLOW_BOUND)
    try:
        yield recorder, watcher
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=SLOW_BOUND)


def has(name: str) -> Callable[[CatalogSnapshot], bool]:
    return lambda snap: snap.get(name) is not None


def lacks(name: str) -> Callable[[CatalogSnapshot], bool]:
    return lambda snap: snap.get(name) is None


async def test_a_copied_in_skill_appears_an_edit_changes_its_hash_and_deletion_removes_it(
    tmp_path: Path, env: Env
) -> None:
    env.roots.user.mkdir(parents=True)
    source = write_skill(tmp_path / "src", "fresh", files={"ref/a.md": b"a"})
    async with watching(env) as (rec, _):
        shutil.copytree(source, env.roots.user / "fresh")
        await rec.until(has("fresh"))
        entry = env.catalog.current.get("fresh")
        assert entry is not None and entry.source == "user"
        old_hash = entry.sha256
        (env.roots.user / "fresh" / "SKILL.md").write_text(skill_md("fresh", description="Edited."))
        await rec.until(lambda s: (e := s.get("fresh")) is not None and e.sha256 != old_hash)
        shutil.rmtree(env.roots.user / "fresh")
        await rec.until(lacks("fresh"))
        assert rec.revisions == sorted(rec.revisions) and len(set(rec.revisions)) == len(rec.revisions)


async def test_an_import_through_the_store_is_seen_once_complete(tmp_path: Path, env: Env) -> None:
    from .helpers import zip_folder

    env.roots.user.mkdir(parents=True)
    archive = zip_folder(write_skill(tmp_path / "src", "zipped"), tmp_path / "z.zip", prefix="zipped")
    async with watching(env) as (rec, _):
        await asyncio.to_thread(env.store.import_zip, archive)
        await rec.until(has("zipped"))


async def test_a_root_created_after_the_watcher_started_is_picked_up(tmp_path: Path, env: Env) -> None:
    assert not env.roots.user.exists()
    async with watching(env) as (rec, _):
        write_skill(env.roots.user, "late")
        await rec.until(has("late"), SLOW_BOUND)
        write_skill(env.roots.user, "later")  # and the new root is now watched itself
        await rec.until(has("later"))


@pytest.mark.parametrize("force_polling", [False, True], ids=["native", "polling"])
async def test_the_watcher_survives_a_root_being_removed_and_recreated(
    tmp_path: Path, env: Env, force_polling: bool
) -> None:
    write_skill(env.roots.user, "keep")
    write_skill(env.home / ".claude" / "skills", "ext")
    async with watching(env, force_polling=force_polling, poll_delay_ms=100) as (rec, _):
        shutil.rmtree(env.roots.user)
        await rec.until(lacks("keep"), SLOW_BOUND)
        write_skill(env.roots.user, "back")
        await rec.until(has("back"), SLOW_BOUND)
        write_skill(env.home / ".claude" / "skills", "ext2")  # other roots kept working
        await rec.until(has("ext2"))


async def test_polling_mode_sees_changes_too(tmp_path: Path, env: Env) -> None:
    env.roots.agent.mkdir(parents=True)
    async with watching(env, force_polling=True, poll_delay_ms=100) as (rec, watcher):
        assert watcher.polling
        write_skill(env.roots.agent, "polled")
        await rec.until(has("polled"))


async def test_an_oserror_from_the_native_watcher_falls_back_to_polling(tmp_path: Path, env: Env) -> None:
    env.roots.user.mkdir(parents=True)
    calls: list[bool] = []

    def flaky_awatch(*paths: Path, **kwargs: Any) -> Any:
        calls.append(bool(kwargs.get("force_polling")))
        if not kwargs.get("force_polling"):
            raise OSError(28, "inotify watch limit reached")
        return awatch(*paths, **kwargs)

    async with watching(env, watch_fn=flaky_awatch, poll_delay_ms=100) as (rec, watcher):
        write_skill(env.roots.user, "fallback")
        await rec.until(has("fallback"))
        assert watcher.polling and calls[0] is False and calls[-1] is True


async def test_the_services_watcher_awaits_an_async_callback(tmp_path: Path, env: Env) -> None:
    env.roots.user.mkdir(parents=True)
    seen: asyncio.Queue[int] = asyncio.Queue()

    async def on_change(revision: int) -> None:
        await seen.put(revision)

    watcher = env.services.watcher(on_change)
    stop = asyncio.Event()
    task = asyncio.create_task(watcher.run(stop))
    await asyncio.wait_for(watcher.ready.wait(), timeout=SLOW_BOUND)
    write_skill(env.roots.user, "async-cb")
    revision = await asyncio.wait_for(seen.get(), timeout=RELOAD_BOUND)
    assert revision >= 1
    stop.set()
    await asyncio.wait_for(task, timeout=SLOW_BOUND)


@pytest.mark.parametrize("force_polling", [False, True], ids=["native", "polling"])
async def test_a_root_replaced_by_a_new_folder_is_watched_again(
    tmp_path: Path, env: Env, force_polling: bool
) -> None:
    write_skill(env.roots.user, "first")
    async with watching(env, force_polling=force_polling, poll_delay_ms=100) as (rec, _):
        shutil.rmtree(env.roots.user)
        write_skill(env.roots.user, "swift")  # same path, new folder, before the watcher wakes
        await rec.until(has("swift"), SLOW_BOUND)
        write_skill(env.roots.user, "after")
        await rec.until(has("after"), SLOW_BOUND)


def test_the_filter_drops_temp_files_staging_and_our_hidden_siblings(tmp_path: Path) -> None:
    root = tmp_path / "user"
    keep = SkillFilter([root])
    assert keep(Change.added, str(root / "demo" / "SKILL.md"))
    assert keep(Change.deleted, str(root))
    assert not keep(Change.added, str(root / "demo" / ".SKILL.md.0a1b2c3d.tmp"))
    assert not keep(Change.added, str(root / "demo" / "notes.md~"))
    assert not keep(Change.added, str(root / ".demo.rollback-0a1b2c3d" / "SKILL.md"))
    assert not keep(Change.added, str(tmp_path / ".staging" / ".work-1" / "SKILL.md"))
