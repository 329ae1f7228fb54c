"""The in-process scheduler (docs/decisions.md 130): while the app runs (window, tray, `serve`)
it wakes at the earliest next run (at most every `poll_s`, so tasks added by another process
and wall-clock jumps are seen), fires what is due and starts each run as a background task."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any

from app.contracts.events import AppEvent
from app.contracts.replies import ModelRef
from app.store.errors import Conflict
from app.support.process import pid_alive, process_start
from app.tasks.events import TasksChanged
from app.tasks.model import RunRecord, TaskRecord
from app.tasks.planning import Fire, Miss, plan
from app.tasks.runner import Approvals, TaskRunner
from app.tasks.store import TaskStore

__all__ = ["Scheduler", "pid_alive", "process_start"]

_log = logging.getLogger(__name__)
GRACE = timedelta(minutes=5)
MIN_DELAY_S = 0.25  # never spin, even if a write keeps failing


class Scheduler:
    def __init__(
        self,
        store: TaskStore,
        runner: TaskRunner,
        clock: Callable[[], datetime],
        publish: Callable[[AppEvent], None],
        *,
        poll_s: float,
        grace: timedelta = GRACE,
        alive: Callable[[int, str | None], bool] = pid_alive,
    ) -> None:
        self._store = store
        self._runner = runner
        self._clock = clock
        self._publish = publish
        self._poll_s = poll_s
        self._grace = grace
        self._alive = alive
        self._start = process_start(os.getpid())  # recorded with each run this process claims
        self._loop_task: asyncio.Task[None] | None = None
        self._runs: set[asyncio.Task[Any]] = set()
        self._wake = asyncio.Event()

    # ---- firing ---------------------------------------------------------------------------------

    def tick(self) -> list[RunRecord]:
        """Fire every due task once (runs start in the background); returns what was recorded."""
        now = self._clock()
        return self._apply(self._steps(now), now)

    async def _tick(self) -> list[RunRecord]:
        """tick() with the reading and planning in a thread: counting the runs a long-closed app
        (or a clock jump) missed must never hold the event loop (issue 33.8)."""
        now = self._clock()
        steps = await asyncio.to_thread(self._steps, now)
        return self._apply(steps, now)

    def _steps(self, now: datetime) -> list[Fire | Miss]:
        steps: list[Fire | Miss] = []
        for task in self._store.due(now):
            try:
                step = plan(task, now, self._grace)
            except Exception:  # one broken task must not stop the others
                _log.warning("task %s could not be scheduled", task.id, exc_info=True)
                continue
            if step is not None:
                steps.append(step)
        return steps

    def _apply(self, steps: list[Fire | Miss], now: datetime) -> list[RunRecord]:
        recorded: list[RunRecord] = []
        for step in steps:
            try:
                recorded.append(self._fire(step, now) if isinstance(step, Fire) else self._miss(step, now))
            except Conflict:
                continue  # another process (or a change meanwhile) moved this slot first
            except Exception:  # one broken task must not stop the others
                _log.warning("task %s could not be scheduled", step.task.id, exc_info=True)
        if recorded:
            self._publish(TasksChanged())
        return recorded

    def _fire(self, step: Fire, now: datetime) -> RunRecord:
        self._store.fail_orphans(self._alive, now)
        run = self._store.fire(
            step.task.id, slot=step.slot, next_run=step.next_run, trigger=step.trigger, now=now,
            pid=os.getpid(), start=self._start, expected_next=step.task.next_run,
        )  # fmt: skip
        self._spawn(self._runner.execute(step.task, run))
        return run

    def _miss(self, step: Miss, now: datetime) -> RunRecord:
        run = self._store.record_missed(
            step.task.id, slot=step.slot, count=step.count, next_run=step.next_run, now=now,
            expected_next=step.task.next_run,
        )  # fmt: skip
        self._spawn(self._runner.execute(step.task, run))  # publishes the finished event
        return run

    async def run_now(
        self, task: TaskRecord, *, wait: bool, fallback: ModelRef | None = None, approvals: Approvals = "wait"
    ) -> RunRecord:
        """A run outside the schedule (run now); the schedule is not moved."""
        now = self._clock()
        self._store.fail_orphans(self._alive, now)
        run = self._store.fire(
            task.id, slot=None, next_run=None, trigger="manual", now=now, pid=os.getpid(), start=self._start
        )
        job = self._runner.execute(task, run, fallback=fallback, approvals=approvals)
        if wait:
            return await job
        self._spawn(job)
        return run

    def _spawn(self, job: Coroutine[Any, Any, RunRecord]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._runs.add(task)
        task.add_done_callback(self._runs.discard)

    # ---- the loop -------------------------------------------------------------------------------

    def start(self) -> None:
        self._store.fail_orphans(self._alive, self._clock())
        if self._loop_task is None:
            self._loop_task = asyncio.get_running_loop().create_task(self._loop(), name="tasks-scheduler")

    def poke(self) -> None:
        """A task changed here: look again now instead of at the next poll."""
        self._wake.set()

    async def _loop(self) -> None:
        while True:
            try:
                await self._tick()
                delay = self._delay()
            except Exception:  # e.g. the database briefly locked by another process
                _log.warning("the task scheduler's tick failed", exc_info=True)
                delay = self._poll_s
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), delay)
            except TimeoutError:
                pass

    def _delay(self) -> float:
        earliest = self._store.earliest_next()
        if earliest is None:
            return self._poll_s
        seconds = (earliest - self._clock()).total_seconds()
        return min(self._poll_s, max(MIN_DELAY_S, seconds))

    async def wait_runs(self) -> None:
        """Tests and shutdown: until every started run has ended."""
        while self._runs:
            await asyncio.wait(set(self._runs))

    async def aclose(self) -> None:
        tasks = [t for t in (self._loop_task, *self._runs) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
            except Exception:
                _log.warning("a task run failed while closing", exc_info=True)
