"""The typed vocabulary of scheduled tasks: schedules, tasks and their runs."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

ApprovalMode = Literal["read_only", "ask_writes", "sandboxed", "autonomous"]
ChatMode = Literal["same_chat", "new_chat"]  # one chat per task, or a new chat per run
MissedPolicy = Literal["run_once", "skip"]  # runs missed while the app was closed
RunStatus = Literal["running", "ok", "failed", "skipped", "missed"]
Trigger = Literal["schedule", "manual", "missed"]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WAIT_FOR_ANSWERS_S = 86_400  # a day (docs/decisions.md 403)
MAX_WAIT_FOR_ANSWERS_S = 30 * 86_400


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Once(_Frozen):
    kind: Literal["once"] = "once"
    at: datetime  # aware (a naive time is read in the user's time zone when parsed)


class Every(_Frozen):
    kind: Literal["every"] = "every"
    seconds: int = Field(ge=1)  # the minimum (60 s) is checked where the settings are known


class Daily(_Frozen):
    kind: Literal["daily"] = "daily"
    hour: int = Field(ge=0, le=23)
    minute: int = Field(ge=0, le=59)


class Weekly(_Frozen):
    kind: Literal["weekly"] = "weekly"
    day: Weekday
    hour: int = Field(ge=0, le=23)
    minute: int = Field(ge=0, le=59)


class Cron(_Frozen):
    kind: Literal["cron"] = "cron"
    expr: str = Field(min_length=1, max_length=200)


Schedule = Annotated[Once | Every | Daily | Weekly | Cron, Field(discriminator="kind")]


class TaskDraft(_Frozen):
    """What the user chooses for a task (add and edit)."""

    name: str = Field(min_length=1, max_length=80)
    prompt: str = Field(min_length=1, max_length=20_000)
    schedule: Schedule
    provider_id: str | None = Field(default=None, max_length=100)  # None: the app's chosen model
    model: str | None = Field(default=None, max_length=200)
    workspace: str | None = Field(default=None, max_length=4096)  # None: the app's workspace
    approval_mode: ApprovalMode = "read_only"
    chat_mode: ChatMode = "same_chat"
    missed_policy: MissedPolicy = "run_once"
    enabled: bool = True
    # The agent the task's turns run as (issue 38); None: the default agent (older tasks).
    agent_id: str | None = Field(default=None, min_length=1, max_length=64)
    # How long a run waits for an answer in the Inbox before it ends as stopped (issue 35);
    # 0: fail at once, as a run nobody can answer.
    wait_for_answers_s: int = Field(default=WAIT_FOR_ANSWERS_S, ge=0, le=MAX_WAIT_FOR_ANSWERS_S)


class TaskRecord(_Frozen):
    id: str
    draft: TaskDraft
    time_zone: str  # the IANA zone daily/weekly/cron times are read in
    anchor: datetime  # "every" schedules count from here (UTC)
    next_run: datetime | None  # None: nothing left to run (a past "once", or disabled)
    last_slot: datetime | None  # the scheduled time of the last slot fired (never fired twice)
    chat_id: str | None  # the task's chat (same_chat)
    created_at: datetime
    last_status: RunStatus | None = None
    last_run_at: datetime | None = None


class RunRecord(_Frozen):
    id: str
    task_id: str
    status: RunStatus
    trigger: Trigger
    slot: datetime | None  # the scheduled time it ran for (None: run now)
    started_at: datetime
    finished_at: datetime | None
    duration_ms: float | None
    chat_id: str | None
    turn_id: str | None  # also the trace id (traces.get)
    answer: str | None
    error: str | None
    refused_tools: tuple[str, ...] = ()  # write tools the approval mode refused
    waiting_approval: bool = False
