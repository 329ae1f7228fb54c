"""The tasks capability's route table (declared in app/tasks/plugin.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.contracts.replies import Empty, Ok
from app.tasks import api_models as tm

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "tasks.list": (Empty, tm.TaskList),
    "tasks.get": (tm.TaskRef, tm.TaskView),
    "tasks.add": (tm.TaskInput, tm.TaskSaved),
    "tasks.update": (tm.TaskEdit, tm.TaskSaved),
    "tasks.set_enabled": (tm.TaskEnable, tm.TaskView),
    "tasks.remove": (tm.TaskRef, Ok),
    "tasks.run": (tm.TaskRun, tm.RunView),
    "tasks.history": (tm.HistoryQuery, tm.RunList),
    "tasks.preview": (tm.PreviewQuery, tm.SchedulePreview),
}
