"""The tasks capability's settings (`sections.tasks` of settings.json) and its test-only knobs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from app.tasks.schedule import MIN_INTERVAL_S

# Test-only: a lower minimum interval and a faster scheduler poll, so a `--every 1m` task can
# fire within a test (tests/tasks). Never read from the settings file: users get 60 s.
TEST_MIN_INTERVAL_ENV = "CASHCODE_TEST_TASKS_MIN_INTERVAL_S"
TEST_POLL_ENV = "CASHCODE_TEST_TASKS_POLL_S"
SCHEDULER_ENV = "CASHCODE_TASKS_SCHEDULER"  # "off": never fire on a schedule (like CASHCODE_DREAM)
POLL_S = 30.0  # how soon a task added by another process (the CLI beside `serve`) is seen


class TasksSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # No longer read: each task has its own "wait for answers up to" (TaskDraft.wait_for_answers_s,
    # issue 35); kept so settings files that name it still load.
    approval_timeout_s: int = Field(default=3600, ge=1, le=7 * 86400)
    time_zone: str | None = Field(default=None, max_length=64)  # None: the machine's zone


@dataclass(frozen=True)
class Knobs:
    min_interval_s: int
    poll_s: float
    scheduler_on: bool

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Knobs:
        minimum = _positive(env.get(TEST_MIN_INTERVAL_ENV), MIN_INTERVAL_S)
        poll = _positive(env.get(TEST_POLL_ENV), POLL_S)
        on = env.get(SCHEDULER_ENV, "").strip().lower() not in ("off", "0", "false")
        return cls(
            min_interval_s=int(min(minimum, MIN_INTERVAL_S)), poll_s=min(poll, POLL_S), scheduler_on=on
        )


def _positive(raw: str | None, default: float) -> float:
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if value > 0 else default
