"""What the scheduler does with a task that is due: pure, given the time (tests use any clock).

A slot is "missed" when the scheduler sees it more than `grace` late: the app was closed, the
machine slept, or the clock jumped forward. The task's policy then runs it once now or records
one `missed` entry; either way the schedule moves past now, so no slot ever fires twice — the
next run is always computed after both the fired slot and the current time, and a clock that
jumps back only waits longer for a next run that is already stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from app.tasks.model import TaskRecord, Trigger
from app.tasks.schedule import last_through, next_after, time_zone

MISSED_COUNT_LIMIT = 10_000


@dataclass(frozen=True)
class Fire:
    task: TaskRecord
    slot: datetime
    next_run: datetime | None
    trigger: Trigger


@dataclass(frozen=True)
class Miss:
    task: TaskRecord
    slot: datetime  # the latest missed slot
    count: int
    next_run: datetime | None


def plan(task: TaskRecord, now: datetime, grace: timedelta) -> Fire | Miss | None:
    slot = task.next_run
    if slot is None or slot > now or not task.draft.enabled:
        return None
    zone = time_zone(task.time_zone)
    schedule = task.draft.schedule
    following = next_after(schedule, max(now, slot), zone, task.anchor)
    if now - slot <= grace:
        return Fire(task, slot, following, "schedule")
    latest, count = last_through(schedule, slot, now, zone, task.anchor, MISSED_COUNT_LIMIT)
    if task.draft.missed_policy == "run_once":
        return Fire(task, latest, following, "missed")
    return Miss(task, latest, count, following)
