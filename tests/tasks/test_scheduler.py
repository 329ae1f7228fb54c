"""The scheduler over the real store with a fake clock: due runs fire once, missed runs follow
the task's policy, overlapping runs are skipped with a record, clock jumps never fire twice,
and a run left `running` by a dead process is failed on the next start."""

from __future__ import annotations

import asyncio
import os
from datetime import timedelta
from pathlib import Path

from app.store.db import Database
from app.tasks.model import Every, MissedPolicy, RunRecord, TaskDraft, TaskRecord
from app.tasks.planning import Fire, Miss, plan
from app.tasks.schedule import next_after, time_zone
from app.tasks.scheduler import Scheduler
from app.tasks.store import INTERRUPTED, TaskStore
from tests.tasks.conftest import FakeClock

GRACE = timedelta(minutes=5)


class HeldRunner:
    """Stands in for the turn: each started run waits until the test lets it end."""

    def __init__(self, store: TaskStore, clock: FakeClock) -> None:
        self.store = store
        self.clock = clock
        self.started: list[str] = []
        self.release = asyncio.Event()

    async def execute(self, task: TaskRecord, run: RunRecord, **_: object) -> RunRecord:
        if run.status != "running":
            return run
        self.started.append(run.id)
        await self.release.wait()
        return self.store.finish(run.id, status="ok", now=self.clock(), answer="done")


def make(tmp_path: Path, clock: FakeClock) -> tuple[TaskStore, HeldRunner, Scheduler]:
    from app.api.plugins import open_database

    db: Database = open_database(tmp_path / "t.db")
    store = TaskStore(db)
    runner = HeldRunner(store, clock)
    scheduler = Scheduler(store, runner, clock, lambda e: None, poll_s=30.0)  # type: ignore[arg-type]
    return store, runner, scheduler


def add(
    store: TaskStore, clock: FakeClock, seconds: int = 600, missed: MissedPolicy = "run_once"
) -> TaskRecord:
    d = TaskDraft(
        name=f"t{seconds}{missed}", prompt="p", schedule=Every(seconds=seconds), missed_policy=missed
    )
    first = next_after(d.schedule, clock(), time_zone("UTC"), clock())
    return store.add(d, time_zone="UTC", anchor=clock(), next_run=first, now=clock())


async def test_a_due_task_fires_once_and_the_next_run_moves_on(tmp_path: Path) -> None:
    clock = FakeClock()
    store, runner, scheduler = make(tmp_path, clock)
    task = add(store, clock)
    assert scheduler.tick() == []
    clock.advance(seconds=600)
    fired = scheduler.tick()
    assert [r.status for r in fired] == ["running"] and fired[0].slot == task.next_run
    assert scheduler.tick() == []  # the same slot never again
    assert store.get(task.id).next_run == clock() + timedelta(seconds=600)
    runner.release.set()
    await scheduler.wait_runs()
    assert [r.status for r in store.runs(task.id)] == ["ok"]


async def test_an_overlapping_slot_is_skipped_with_a_record(tmp_path: Path) -> None:
    clock = FakeClock()
    store, runner, scheduler = make(tmp_path, clock)
    task = add(store, clock, seconds=60)
    clock.advance(seconds=60)
    scheduler.tick()
    await asyncio.sleep(0)
    clock.advance(seconds=60)
    second = scheduler.tick()
    assert [r.status for r in second] == ["skipped"]
    assert second[0].error == "the previous run was still running"
    runner.release.set()
    await scheduler.wait_runs()
    assert [r.status for r in store.runs(task.id)] == ["skipped", "ok"]
    assert len(runner.started) == 1


async def test_missed_runs_run_once_now_or_are_recorded_as_missed(tmp_path: Path) -> None:
    clock = FakeClock()
    store, runner, scheduler = make(tmp_path, clock)
    once = add(store, clock, seconds=600, missed="run_once")
    skip = add(store, clock, seconds=600, missed="skip")
    clock.advance(hours=3)  # the app was closed (or the machine slept) for 18 slots
    recorded = {r.task_id: r for r in scheduler.tick()}
    assert recorded[once.id].status == "running" and recorded[once.id].trigger == "missed"
    assert recorded[skip.id].status == "missed" and "18 runs" in (recorded[skip.id].error or "")
    for task in (once, skip):
        assert store.get(task.id).next_run == clock() + timedelta(seconds=600)
    assert scheduler.tick() == []
    runner.release.set()
    await scheduler.wait_runs()
    assert len(runner.started) == 1


def test_plan_is_pure_and_a_clock_jumping_back_does_not_fire_again() -> None:
    clock = FakeClock()
    now = clock()
    d = TaskDraft(name="x", prompt="p", schedule=Every(seconds=600))
    task = TaskRecord(
        id="i", draft=d, time_zone="UTC", anchor=now, next_run=now + timedelta(seconds=600),
        last_slot=None, chat_id=None, created_at=now,
    )  # fmt: skip
    assert plan(task, now, GRACE) is None
    due = plan(task, now + timedelta(seconds=601), GRACE)
    assert isinstance(due, Fire) and due.trigger == "schedule"
    assert due.next_run == now + timedelta(seconds=1200)
    fired = task.model_copy(update={"next_run": due.next_run, "last_slot": due.slot})
    # The clock goes back an hour: the stored next run is in the future, nothing is due.
    assert plan(fired, now - timedelta(hours=1), GRACE) is None
    late = plan(task.model_copy(update={"draft": d.model_copy(update={"missed_policy": "skip"})}),
                now + timedelta(hours=1, seconds=1), GRACE)  # fmt: skip
    assert isinstance(late, Miss) and late.count == 6


async def test_two_schedulers_on_one_database_fire_a_slot_once(tmp_path: Path) -> None:
    clock = FakeClock()
    store, runner, first = make(tmp_path, clock)
    second = Scheduler(store, runner, clock, lambda e: None, poll_s=30.0)  # type: ignore[arg-type]
    task = add(store, clock)
    clock.advance(seconds=600)
    stale = store.get(task.id)
    assert len(first.tick()) == 1
    # The other process read the task before the first fired it: its write finds a moved slot.
    from app.store.errors import Conflict

    try:
        store.fire(task.id, slot=stale.next_run, next_run=None, trigger="schedule", now=clock(), pid=1,
                   expected_next=stale.next_run)  # fmt: skip
        raise AssertionError("fired twice")
    except Conflict:
        pass
    assert second.tick() == []
    runner.release.set()
    await first.wait_runs()


def test_a_run_left_running_by_a_dead_process_is_failed_on_start(tmp_path: Path) -> None:
    clock = FakeClock()
    store, _runner, _scheduler = make(tmp_path, clock)
    task = add(store, clock)
    dead_pid = 2**22 + 12345
    run = store.fire(task.id, slot=None, next_run=None, trigger="manual", now=clock(), pid=dead_pid)
    alive = store.fire(task.id, slot=None, next_run=None, trigger="manual", now=clock(), pid=os.getpid())
    assert alive.status == "skipped"  # one run per task, even across processes
    assert store.fail_orphans(lambda pid, _start: pid == os.getpid(), clock()) == 1
    failed = store.run(run.id)
    assert failed.status == "failed" and failed.error == INTERRUPTED
