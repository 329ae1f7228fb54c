"""When a schedule runs next: pure functions of the schedule, a time zone and "after" (no
clock of its own, so tests drive it with any time they like).

The DST rule (docs/decisions.md 131): daily, weekly and cron times are wall-clock times in
the task's zone and each one runs once. A time that does not exist (the clocks jump forward
over it) runs when the clocks show it shifted by the gap (02:30 → 03:30); a time that exists
twice (the clocks go back) runs at its first occurrence only. "Every N" counts elapsed time
from the task's anchor, so it keeps its spacing across a change.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.contracts.errors import Said, say
from app.tasks.model import WEEKDAYS, Cron, Daily, Every, Once, Schedule, Weekday, Weekly

MIN_INTERVAL_S = 60
_DURATION_PART = re.compile(r"(\d+)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|h|days?|d)")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_HHMM = re.compile(r"(\d{1,2}):(\d{2})")
_DAYS = {name[:3]: name for name in WEEKDAYS}
_LONG_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CRON_SEARCH_LIMIT = 5000  # candidates looked at before a cron expression counts as never
MAX_DURATION_S = 366 * 86400


class ScheduleError(ValueError):
    """A schedule the user wrote that cannot be used (the message says what to write)."""


def time_zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(say("schedule.zone", zone=name[:64])) from None


def parse_duration(text: str) -> int:
    """ "90m", "1h30m", "2 days" → seconds."""
    rest = text.strip().lower()
    if not rest:
        raise ScheduleError(say("schedule.interval_empty"))
    total = 0
    while rest:
        match = _DURATION_PART.match(rest)
        if match is None:
            raise ScheduleError(say("schedule.interval_unreadable", text=text[:40]))
        total += int(match.group(1)) * _UNIT_S[match.group(2)[0]]
        rest = rest[match.end() :].lstrip()
    if total <= 0 or total > MAX_DURATION_S:
        raise ScheduleError(say("schedule.interval_range"))
    return total


def check_every(seconds: int, minimum_s: int) -> None:
    if seconds < minimum_s:
        raise ScheduleError(say("schedule.interval_min", minimum=_human(minimum_s)))


def parse_hhmm(text: str) -> tuple[int, int]:
    match = _HHMM.fullmatch(text.strip())
    if match is None or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ScheduleError(say("schedule.not_time", text=text[:20]))
    return int(match.group(1)), int(match.group(2))


def parse_daily(text: str) -> Daily:
    hour, minute = parse_hhmm(text)
    return Daily(hour=hour, minute=minute)


def parse_weekly(text: str) -> Weekly:
    day_text, sep, time_text = text.partition("@")
    day = _weekday(day_text) if sep else None
    if day is None:
        raise ScheduleError(say("schedule.not_weekly", text=text[:30]))
    hour, minute = parse_hhmm(time_text)
    return Weekly(day=day, hour=hour, minute=minute)


def _weekday(text: str) -> Weekday | None:
    word = text.strip().lower()
    if word in _LONG_DAYS:
        word = word[:3]
    return _DAYS.get(word)


def parse_cron(text: str) -> Cron:
    from croniter import croniter

    expr = " ".join(text.split())
    fields = expr.split(" ")
    if len(fields) == 5 and (wrong := _field_out_of_range(fields)) is not None:
        raise ScheduleError(wrong)
    if len(fields) != 5 or not croniter.is_valid(expr):
        raise ScheduleError(say("schedule.not_cron", text=text[:60]))
    cron = Cron(expr=expr)
    if next_after(cron, datetime(2000, 1, 1, tzinfo=UTC), UTC, datetime(2000, 1, 1, tzinfo=UTC)) is None:
        raise ScheduleError(say("schedule.cron_never", expr=expr))
    return cron


# The five cron fields, in order, with the numbers each takes (day of week: 0 and 7 are Sunday).
_CRON_FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)


def _field_out_of_range(fields: list[str]) -> Said | None:
    """Which field holds a number outside its range (`0 25 * * *`: the hour), so the message
    can say so; None when every number fits (names such as `mon` are left to croniter)."""
    for (label, lo, hi), field in zip(_CRON_FIELDS, fields, strict=True):
        for part in field.split(","):
            values = part.split("/", 1)[0].split("-")
            for value in values:
                if value.isdigit() and not lo <= int(value) <= hi:
                    return say("schedule.cron_field", part=label, value=value, low=lo, high=hi)
    return None


def parse_at(text: str, zone: ZoneInfo) -> Once:
    try:
        at = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ScheduleError(say("schedule.not_iso", text=text[:40])) from None
    if at.tzinfo is None:
        at = at.replace(tzinfo=zone)
    return Once(at=at.astimezone(UTC))


def check(schedule: Schedule, minimum_s: int) -> None:
    """What the model's field ranges cannot say (used for schedules from the routes too)."""
    if isinstance(schedule, Every):
        check_every(schedule.seconds, minimum_s)
    elif isinstance(schedule, Cron):
        parse_cron(schedule.expr)
    elif isinstance(schedule, Once) and schedule.at.tzinfo is None:
        raise ScheduleError(say("schedule.once_zone"))


def next_after(schedule: Schedule, after: datetime, zone: tzinfo, anchor: datetime) -> datetime | None:
    """The first run strictly after `after` (aware), in UTC; None when there is none."""
    after = after.astimezone(UTC)
    if isinstance(schedule, Once):
        at = schedule.at.astimezone(UTC)
        return at if at > after else None
    if isinstance(schedule, Every):
        anchor = anchor.astimezone(UTC)
        if anchor > after:
            return anchor
        steps = int((after - anchor).total_seconds() // schedule.seconds) + 1
        return anchor + timedelta(seconds=steps * schedule.seconds)
    return _first_wall_time_after(
        _wall_times(schedule, after.astimezone(zone).replace(tzinfo=None)), zone, after
    )


def last_through(
    schedule: Schedule, first: datetime, until: datetime, zone: tzinfo, anchor: datetime, limit: int
) -> tuple[datetime, int]:
    """From `first` (a run, at or before `until`): the last run at or before `until` and how
    many runs that makes, counting at most `limit`. One forward pass (an interval is counted
    by arithmetic): calling `next_after` once per run restarted its search each time, and ten
    thousand missed runs of an every-minute cron took 34 s (issue 33.8)."""
    following = next_after(schedule, first, zone, anchor)
    if following is None or following > until or limit <= 1:
        return first, 1
    if isinstance(schedule, Every):  # `following` is on the anchor's grid: count the grid
        more = min(int((until - following).total_seconds() // schedule.seconds), limit - 2)
        return following + timedelta(seconds=more * schedule.seconds), more + 2
    if isinstance(schedule, Once):
        return following, 2  # not reached: a one-off has no run after its first
    latest, count = following, 2
    for wall in _wall_times(schedule, following.astimezone(zone).replace(tzinfo=None)):
        if count >= limit:
            break
        at = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
        if at <= latest:
            continue  # the candidates start a little before `following`
        if at > until:
            break
        latest, count = at, count + 1
    return latest, count


def upcoming(
    schedule: Schedule, after: datetime, zone: tzinfo, anchor: datetime, count: int
) -> list[datetime]:
    out: list[datetime] = []
    current = after
    while len(out) < count:
        found = next_after(schedule, current, zone, anchor)
        if found is None:
            break
        out.append(found)
        current = found
    return out


def _first_wall_time_after(candidates: Iterator[datetime], zone: tzinfo, after: datetime) -> datetime | None:
    for count, wall in enumerate(candidates):
        if count >= _CRON_SEARCH_LIMIT:
            return None
        # fold=0: an ambiguous time is its first occurrence; a missing one lands after the gap.
        at = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
        if at > after:
            return at
    return None


def _wall_times(schedule: Daily | Weekly | Cron, start: datetime) -> Iterator[datetime]:
    """Naive local candidates in order, from a little before `start` (3 hours back covers any
    offset change; a day for the cheap daily and weekly steps)."""
    if isinstance(schedule, Cron):
        from croniter import croniter

        begin = start - timedelta(hours=3)
        from croniter import CroniterError

        it = croniter(schedule.expr, begin.replace(second=0, microsecond=0))
        while True:
            try:
                yield it.get_next(datetime)
            except CroniterError:  # no match within croniter's search window: it never runs
                return
    begin = start - timedelta(days=1)
    day = begin.replace(hour=schedule.hour, minute=schedule.minute, second=0, microsecond=0)
    step = timedelta(days=1)
    if isinstance(schedule, Weekly):
        day += timedelta(days=(WEEKDAYS.index(schedule.day) - day.weekday()) % 7)
        step = timedelta(days=7)
    while True:
        yield day
        day += step


def describe(schedule: Schedule) -> str:
    """One line for lists: the schedule as the CLI flag that makes it."""
    if isinstance(schedule, Once):
        return f"at {schedule.at.isoformat()}"
    if isinstance(schedule, Every):
        return f"every {_human(schedule.seconds)}"
    if isinstance(schedule, Daily):
        return f"daily {schedule.hour:02d}:{schedule.minute:02d}"
    if isinstance(schedule, Weekly):
        return f"weekly {schedule.day}@{schedule.hour:02d}:{schedule.minute:02d}"
    return f"cron {schedule.expr}"


def _human(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
