"""Task tests: the real app on temp dirs with the scripted LLM, and a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from app.api.app import CashCodeApp
from app.tasks.capability import TasksCapability
from app.tasks.hooks import TasksHooks
from tests.api.conftest import fake_llm, make_app, paths, secrets, workspace

__all__ = ["fake_llm", "make_app", "paths", "secrets", "workspace"]

LOWERED = {"CASHCODE_TEST_TASKS_MIN_INTERVAL_S": "1"}


class FakeClock:
    def __init__(self, start: datetime = datetime(2026, 3, 27, 12, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw: float) -> None:
        self.now += timedelta(**kw)


def tasks_of(app: CashCodeApp) -> TasksCapability:
    hooks = next(c for c in app.capabilities if c.name == "tasks")
    assert isinstance(hooks, TasksHooks)
    return hooks.full()


def draft(name: str = "brief", **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": name, "prompt": "Say hi", "schedule": {"kind": "every", "seconds": 3600}}
    base.update(kw)
    return base
