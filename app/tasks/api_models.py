"""Request/response models of the `tasks.*` routes (pydantic, extra="forbid", frozen)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.contracts.replies import ModelRef
from app.tasks.model import ApprovalMode, ChatMode, MissedPolicy, RunStatus, Schedule, TaskDraft, Trigger


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaskRef(_Model):
    task_id: str = Field(max_length=64)


class TaskInput(_Model):
    draft: TaskDraft
    time_zone: str | None = Field(default=None, max_length=64)  # None: the user's zone


class TaskEdit(_Model):
    task_id: str = Field(max_length=64)
    draft: TaskDraft
    time_zone: str | None = Field(default=None, max_length=64)  # None: keep the task's zone


class TaskEnable(_Model):
    task_id: str = Field(max_length=64)
    enabled: bool


class TaskRun(_Model):
    task_id: str = Field(max_length=64)
    wait: bool = False  # True: answer when the run has ended (the CLI's foreground run)
    approvals: Literal["wait", "deny"] = "wait"  # "deny": nobody can answer (no app window)
    model: ModelRef | None = None  # for a task without its own model (the CLI's provider)


class HistoryQuery(_Model):
    task_id: str = Field(max_length=64)
    limit: int = Field(default=50, ge=1, le=200)


class PreviewQuery(_Model):
    schedule: Schedule
    time_zone: str | None = Field(default=None, max_length=64)
    count: int = Field(default=5, ge=1, le=20)


class TaskView(_Model):
    id: str
    name: str
    prompt: str
    schedule: Schedule
    schedule_text: str  # e.g. "daily 07:30"
    provider_id: str | None
    model: str | None
    workspace: str | None
    approval_mode: ApprovalMode
    chat_mode: ChatMode
    missed_policy: MissedPolicy
    enabled: bool
    wait_for_answers_s: int  # 0: a question fails the run at once
    time_zone: str
    next_run: datetime | None
    last_status: RunStatus | None
    last_run_at: datetime | None
    chat_id: str | None
    created_at: datetime
    agent_id: str | None = None  # None: the default agent


class TaskSaved(_Model):
    task: TaskView
    warnings: list[str]  # e.g. autonomous mode runs every tool call unasked


class TaskList(_Model):
    tasks: list[TaskView]
    time_zone: str  # the user's zone (new tasks get it)
    # what a new task gets when it names no mode: sandboxed where a sandbox can start
    default_approval_mode: ApprovalMode = "read_only"


class RunView(_Model):
    id: str
    task_id: str
    status: RunStatus
    trigger: Trigger
    slot: datetime | None
    started_at: datetime
    finished_at: datetime | None
    duration_ms: float | None
    chat_id: str | None
    trace_id: str | None  # the turn id: traces.get
    answer: str | None
    error: str | None
    refused_tools: list[str]
    waiting_approval: bool


class RunList(_Model):
    runs: list[RunView]


class SchedulePreview(_Model):
    next_runs: list[datetime]
    schedule_text: str
    time_zone: str
