"""Every schedule kind's next runs, across DST changes (Europe/Berlin, America/New_York), with
times given, never the machine's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.tasks.model import Daily, Every, Once, Weekly
from app.tasks.schedule import (
    ScheduleError,
    check,
    describe,
    next_after,
    parse_at,
    parse_cron,
    parse_daily,
    parse_duration,
    parse_weekly,
    upcoming,
)

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
T0 = datetime(2026, 3, 27, 12, 0, tzinfo=UTC)  # two days before Berlin springs forward


def local(times: list[datetime], zone: ZoneInfo) -> list[str]:
    return [t.astimezone(zone).isoformat() for t in times]


def test_daily_keeps_its_wall_clock_time_across_spring_forward_and_a_missing_time_shifts() -> None:
    assert local(upcoming(parse_daily("07:30"), T0, BERLIN, T0, 4), BERLIN) == [
        "2026-03-28T07:30:00+01:00",
        "2026-03-29T07:30:00+02:00",
        "2026-03-30T07:30:00+02:00",
        "2026-03-31T07:30:00+02:00",
    ]
    # 02:30 does not exist on 29 March in Berlin: it runs when the clocks show 03:30.
    runs = upcoming(parse_daily("02:30"), datetime(2026, 3, 28, 12, tzinfo=UTC), BERLIN, T0, 2)
    assert local(runs, BERLIN) == ["2026-03-29T03:30:00+02:00", "2026-03-30T02:30:00+02:00"]


def test_a_time_that_happens_twice_when_clocks_go_back_runs_once() -> None:
    start = datetime(2026, 10, 31, 12, tzinfo=UTC)  # New York falls back on 1 November 2026
    runs = upcoming(parse_daily("01:30"), start, NEW_YORK, start, 3)
    assert local(runs, NEW_YORK) == [
        "2026-11-01T01:30:00-04:00",
        "2026-11-02T01:30:00-05:00",
        "2026-11-03T01:30:00-05:00",
    ]
    # Asked again from inside the repeated hour (the second 01:10), the next run is tomorrow.
    second_pass = datetime(2026, 11, 1, 6, 10, tzinfo=UTC)  # 01:10 EST
    assert local([next_after(parse_daily("01:30"), second_pass, NEW_YORK, start)], NEW_YORK) == [  # type: ignore[list-item]
        "2026-11-02T01:30:00-05:00"
    ]


def test_weekly_day_and_time_in_the_users_zone_across_fall_back() -> None:
    start = datetime(2026, 10, 20, tzinfo=UTC)
    runs = upcoming(parse_weekly("sun@02:30"), start, BERLIN, start, 3)
    assert local(runs, BERLIN) == [
        "2026-10-25T02:30:00+02:00",
        "2026-11-01T02:30:00+01:00",
        "2026-11-08T02:30:00+01:00",
    ]
    assert parse_weekly("Monday@09:05") == Weekly(day="mon", hour=9, minute=5)


def test_cron_runs_each_wall_time_once_through_both_changes() -> None:
    every_half_hour = parse_cron("*/30 * * * *")
    spring = upcoming(every_half_hour, datetime(2026, 3, 29, 0, 30, tzinfo=UTC), BERLIN, T0, 3)
    assert local(spring, BERLIN) == [
        "2026-03-29T03:00:00+02:00",  # 02:00 and 02:30 do not exist: one run after the gap
        "2026-03-29T03:30:00+02:00",
        "2026-03-29T04:00:00+02:00",
    ]
    autumn = upcoming(every_half_hour, datetime(2026, 10, 25, 0, 0, tzinfo=UTC), BERLIN, T0, 3)
    assert local(autumn, BERLIN) == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T03:00:00+01:00",  # the repeated 02:00 and 02:30 do not run again
        "2026-10-25T03:30:00+01:00",
    ]
    weekdays = upcoming(parse_cron("0 9 * * 1-5"), datetime(2026, 3, 6, 15, tzinfo=UTC), NEW_YORK, T0, 3)
    assert local(weekdays, NEW_YORK) == [
        "2026-03-09T09:00:00-04:00",  # New York sprang forward on 8 March
        "2026-03-10T09:00:00-04:00",
        "2026-03-11T09:00:00-04:00",
    ]


def test_every_counts_elapsed_time_from_its_anchor_across_a_change() -> None:
    every = Every(seconds=parse_duration("12h"))
    runs = upcoming(every, T0, BERLIN, T0, 4)
    assert [r - T0 for r in runs] == [timedelta(hours=12 * k) for k in (1, 2, 3, 4)]
    assert parse_duration("1h30m") == 5400 and parse_duration("2 days") == 172800
    assert next_after(every, T0 - timedelta(hours=1), BERLIN, T0) == T0


def test_once_runs_once_and_a_naive_time_is_read_in_the_users_zone() -> None:
    once = parse_at("2026-03-29T02:30", BERLIN)
    assert once.at == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)  # the missing time, shifted
    assert next_after(once, T0, BERLIN, T0) == once.at
    assert next_after(once, once.at, BERLIN, T0) is None
    assert parse_at("2027-01-01T09:00:00+00:00", BERLIN) == Once(at=datetime(2027, 1, 1, 9, tzinfo=UTC))


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (parse_duration, "soon", "cannot read the interval"),
        (parse_duration, "0m", "more than 0"),
        (parse_daily, "24:00", "not a time of day"),
        (parse_weekly, "someday@09:00", "DAY@HH:MM"),
        (parse_weekly, "mon 09:00", "DAY@HH:MM"),
        (parse_cron, "* * * *", "five fields"),
        (parse_cron, "0 0 30 2 *", "never runs"),
    ],
)
def test_bad_schedules_say_what_to_write(parse: object, text: str, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        parse(text)  # type: ignore[operator]


def test_the_minimum_interval_is_one_minute_unless_lowered() -> None:
    with pytest.raises(ScheduleError, match="at least 1m"):
        check(Every(seconds=59), 60)
    check(Every(seconds=2), 1)  # the test-only setting
    assert describe(Every(seconds=90)) == "every 90s"
    assert describe(Daily(hour=7, minute=5)) == "daily 07:05"
