"""The tasks capability's events (declared in app/tasks/plugin.py)."""

from __future__ import annotations

from typing import Literal

from app.contracts.events import Event


class TaskRunFinished(Event):
    """A task's run ended (ok, failed, skipped or missed); `open_chat_id` is where its turn is
    (not `chat_id`: this is no turn event, and a run that failed early has no chat)."""

    type: Literal["task_run_finished"] = "task_run_finished"
    task_id: str
    task_name: str
    run_id: str
    status: Literal["ok", "failed", "skipped", "missed"]
    open_chat_id: str | None = None
    error: str | None = None


class TasksChanged(Event):
    """A task was added, edited, enabled/disabled, removed or its next run moved."""

    type: Literal["tasks_changed"] = "tasks_changed"
    removed: str | None = None  # the id of a task that was removed (its saved turns go too)


EVENTS = (TaskRunFinished, TasksChanged)
