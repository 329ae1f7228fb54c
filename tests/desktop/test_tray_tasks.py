"""The tray's scheduled-task items: the next enabled task and its time, "Run now" calling
`tasks.run` (never for a task disabled since the menu was filled), and the task and chat entries
re-read after a run and when the menu opens (recording stand-ins for the tray and the app, the
real shell and core loop)."""

from __future__ import annotations

from typing import Any

from app.desktop.core_loop import CoreLoop
from app.desktop.presence import Presence
from app.settings.paths import AppPaths
from tests.desktop.test_shell import FakeTray, drain, parts

__all__ = ["parts"]


class TasksApp:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.chats: list[dict[str, Any]] = []
        self.tasks = [
            {"id": "t1", "name": "Weekly report", "enabled": True, "next_run": "2027-01-08T09:00:00Z"},
            {"id": "t2", "name": "Off", "enabled": False, "next_run": None},
            {"id": "t3", "name": "Morning brief", "enabled": True, "next_run": "2027-01-04T07:30:00Z"},
        ]

    async def invoke(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((route, payload))
        if route == "tasks.list":
            return {"ok": True, "data": {"tasks": self.tasks, "time_zone": "UTC"}}
        if route == "tasks.get":
            return {"ok": True, "data": next(t for t in self.tasks if t["id"] == payload["task_id"])}
        if route == "chats.list":
            return {"ok": True, "data": {"chats": self.chats}}
        return {"ok": True, "data": {}}


class _Event:
    def __init__(self, type: str) -> None:
        self.type = type


def test_the_tray_shows_the_next_task_and_run_now_runs_it(parts: Any, tmp_path: Any, core: CoreLoop) -> None:
    _ops, _main, _quick, shell = parts
    app = TasksApp()
    shell.attach_app(app, core.loop)
    presence = Presence(shell, AppPaths(tmp_path, tmp_path, tmp_path, tmp_path), {})
    tray = FakeTray()
    presence.tray = tray
    presence.on_event(_Event("tasks_changed"))
    drain(shell)
    assert tray.next_task is not None
    assert (tray.next_task.task_id, tray.next_task.name) == ("t3", "Morning brief")
    presence._run_task(tray.next_task.task_id)  # what the menu item calls
    drain(shell)
    assert ("tasks.run", {"task_id": "t3"}) in app.calls
    app.tasks = [t | {"enabled": False} for t in app.tasks]
    presence.on_event(_Event("task_run_finished"))
    drain(shell)
    assert tray.next_task is None  # nothing scheduled: "No scheduled task", no Run now


def _presence(parts: Any, tmp_path: Any, core: CoreLoop) -> tuple[Presence, FakeTray, TasksApp, Any]:
    _ops, _main, _quick, shell = parts
    app = TasksApp()
    shell.attach_app(app, core.loop)
    presence = Presence(shell, AppPaths(tmp_path, tmp_path, tmp_path, tmp_path), {})
    tray = FakeTray()
    presence.tray = tray
    presence.on_event(_Event("tasks_changed"))
    drain(shell)
    return presence, tray, app, shell


def test_run_now_never_runs_a_task_disabled_since_the_menu_was_filled(
    parts: Any, tmp_path: Any, core: CoreLoop
) -> None:
    presence, tray, app, shell = _presence(parts, tmp_path, core)
    assert tray.next_task.task_id == "t3"
    # Disabled from the terminal (another process): no event reaches this one.
    app.tasks = [t | {"enabled": False} if t["id"] == "t3" else t for t in app.tasks]
    presence._run_task("t3")
    drain(shell)
    assert not [c for c in app.calls if c[0] == "tasks.run"]
    assert tray.next_task.task_id == "t1"  # the menu now offers the task that is enabled


def test_the_menu_opening_rereads_tasks_and_chats(parts: Any, tmp_path: Any, core: CoreLoop) -> None:
    presence, tray, app, shell = _presence(parts, tmp_path, core)
    app.tasks = [t | {"enabled": False} for t in app.tasks]
    app.chats = [{"id": "c1", "title": "From the terminal", "updated_at": "2027-01-01T00:00:00Z"}]
    presence._menu_opened()  # what the menu's aboutToShow calls
    drain(shell)
    drain(shell)
    assert tray.next_task is None
    assert [c.title for c in tray.recent] == ["From the terminal"]


def test_a_scheduled_run_or_a_started_turn_refreshes_the_recent_chats(
    parts: Any, tmp_path: Any, core: CoreLoop
) -> None:
    presence, tray, app, shell = _presence(parts, tmp_path, core)
    for kind, title in (("turn_started", "Quick question"), ("task_run_finished", "Morning brief")):
        app.chats = [{"id": kind, "title": title, "updated_at": "2027-01-01T00:00:00Z"}]
        presence.on_event(_Event(kind))
        drain(shell)
        assert [c.title for c in tray.recent] == [title], kind
