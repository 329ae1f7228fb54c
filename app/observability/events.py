"""The observability capability's events (declared in app/observability/plugin.py)."""

from __future__ import annotations

from typing import Literal

from app.contracts.events import Event


class EvalProgress(Event):
    """An eval run (app/observability/eval_runs.py) finished a case, or ended."""

    type: Literal["eval_progress"] = "eval_progress"
    run_id: str
    status: Literal["running", "done", "failed"]
    done: int
    total: int
    passed: int
    case: str | None = None  # the name of the case just finished
    case_passed: bool | None = None


class DatabaseProblem(Event):
    """The start-up integrity check (`PRAGMA quick_check`) found damage; `message` says what to do."""

    type: Literal["database_problem"] = "database_problem"
    message: str
    details: list[str]


EVENTS = (EvalProgress, DatabaseProblem)
