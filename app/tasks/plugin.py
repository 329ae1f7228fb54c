"""The scheduled-tasks capability (issue 29): declared for the app."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin, SettingsSection

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.tasks.hooks import TasksHooks  # light: the rest loads on first use

    return TasksHooks(host)


def _settings_model() -> type:
    from app.tasks.settings import TasksSettings

    return TasksSettings


def _tasks_v1(conn: sqlite3.Connection) -> None:
    from app.store.migrations import run_script
    from app.tasks.schema import TASKS_V1

    run_script(conn, TASKS_V1)


def _tasks_v2(conn: sqlite3.Connection) -> None:
    from app.store.migrations import run_script
    from app.tasks.schema import TASKS_V2

    run_script(conn, TASKS_V2)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="tasks",
    build=_build,
    routes="app.tasks.api_routes",
    events="app.tasks.events",
    migrations=(_tasks_v1, _tasks_v2),
    settings=SettingsSection("tasks", _settings_model),
)
