"""TasksCapability: the `tasks.*` routes, the scheduler (started by `start()`: desktop, tray,
serve) and the turn overrides that give a task's turn its own approval mode and workspace."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from app.contracts.capability import Capability, Handler
from app.contracts.errors import ApiFailure, said, say
from app.contracts.replies import Ok
from app.host.host import Host, SectionStore
from app.store.errors import NotFound
from app.store.ids import is_valid_id
from app.tasks import api_models as tm
from app.tasks.board import OverrideBoard
from app.tasks.events import TasksChanged
from app.tasks.model import ApprovalMode, RunRecord, TaskDraft, TaskRecord
from app.tasks.runner import RunnerDeps, TaskRunner
from app.tasks.schedule import ScheduleError, check, describe, next_after, time_zone, upcoming
from app.tasks.scheduler import Scheduler
from app.tasks.settings import Knobs, TasksSettings
from app.tasks.store import TaskStore
from app.tasks.zone import local_zone_name

AUTONOMOUS_WARNING = (
    "Autonomous: this task runs every tool call without asking, including writes and commands, "
    "while nobody is watching. Use Read-only or Ask unless you are sure."
)


def utc_now() -> datetime:
    return datetime.now(UTC)


class TasksCapability(Capability):
    """Built on the first route call or at `start()` (app/tasks/hooks.py is what `ask` builds)."""

    name = "tasks"

    def __init__(self, host: Host, board: OverrideBoard, clock: Callable[[], datetime] = utc_now) -> None:
        self._host = host
        self._clock = clock
        self._knobs = Knobs.from_env(host.env)
        self._settings = SectionStore(host.settings, "tasks", TasksSettings)
        self.store = TaskStore(host.db)
        self.runner = TaskRunner(
            board,
            RunnerDeps(
                store=self.store,
                app=lambda: host.app,
                publish=host.publish,
                clock=clock,
                provider_known=lambda pid: host.provider_kind(pid) is not None,
                recheck_s=self._knobs.poll_s,
            ),
        )
        self.scheduler = Scheduler(self.store, self.runner, clock, host.publish, poll_s=self._knobs.poll_s)

    # ---- hooks ----------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._knobs.scheduler_on:
            self.scheduler.start()

    async def aclose(self) -> None:
        await self.scheduler.aclose()

    def routes(self) -> Mapping[str, Handler]:
        return {
            "tasks.list": self._list,
            "tasks.get": self._get,
            "tasks.add": self._add,
            "tasks.update": self._update,
            "tasks.set_enabled": self._set_enabled,
            "tasks.remove": self._remove,
            "tasks.run": self._run,
            "tasks.history": self._history,
            "tasks.preview": self._preview,
        }

    # ---- routes ---------------------------------------------------------------------------------

    def zone_name(self) -> str:
        return local_zone_name(self._host.env, self._settings.load().time_zone)

    async def _list(self, req: object) -> tm.TaskList:
        return tm.TaskList(
            tasks=[task_view(t) for t in self.store.all()],
            time_zone=self.zone_name(),
            default_approval_mode=self.default_approval_mode(),
        )

    def default_approval_mode(self) -> ApprovalMode:
        """A new task runs Sandboxed where a sandbox can start, else read-only (decision 368).
        Probed now (one syscall): CASHCODE_SANDBOX=off or another kernel changes it."""
        from app.sandbox.probe import landlock_abi

        return "sandboxed" if landlock_abi(self._host.env)[0] >= 1 else "read_only"

    async def _get(self, req: tm.TaskRef) -> tm.TaskView:
        return task_view(self._task(req.task_id))

    async def _add(self, req: tm.TaskInput) -> tm.TaskSaved:
        zone = req.time_zone or self.zone_name()
        given = req.draft
        if "approval_mode" not in given.model_fields_set:  # only new tasks; edits keep theirs
            given = given.model_copy(update={"approval_mode": self.default_approval_mode()})
        draft = self._checked(given, zone)
        await self._check_agent(draft)
        now = self._clock()
        task = self.store.add(
            draft, time_zone=zone, anchor=now, next_run=self._next(draft, zone, now, now), now=now
        )
        return self._saved(task)

    async def _update(self, req: tm.TaskEdit) -> tm.TaskSaved:
        old = self._task(req.task_id)
        zone = req.time_zone or old.time_zone
        draft = self._checked(req.draft, zone)
        await self._check_agent(draft)
        now = self._clock()
        # A changed schedule counts from now; an unchanged one keeps its anchor (same slots).
        anchor = old.anchor if draft.schedule == old.draft.schedule else now
        after = max(now, old.last_slot) if old.last_slot else now
        next_run = self._next(draft, zone, anchor, after)
        task = self.store.update(old.id, draft, anchor=anchor, next_run=next_run, now=now, time_zone=zone)
        return self._saved(task)

    async def _set_enabled(self, req: tm.TaskEnable) -> tm.TaskView:
        old = self._task(req.task_id)
        draft = old.draft.model_copy(update={"enabled": req.enabled})
        now = self._clock()
        after = max(now, old.last_slot) if old.last_slot else now
        task = self.store.update(
            old.id,
            draft,
            anchor=old.anchor,
            next_run=self._next(draft, old.time_zone, old.anchor, after),
            now=now,
        )
        self._changed()
        return task_view(task)

    async def _remove(self, req: tm.TaskRef) -> Ok:
        task = self._task(req.task_id)
        if any(r.status == "running" for r in self.store.runs(task.id, limit=1)):
            raise ApiFailure("busy", say("task.busy_remove"))
        self.store.remove(task.id)
        self._changed(removed=task.id)
        return Ok()

    async def _run(self, req: tm.TaskRun) -> tm.RunView:
        task = self._task(req.task_id)
        run = await self.scheduler.run_now(task, wait=req.wait, fallback=req.model, approvals=req.approvals)
        return run_view(run)

    async def _history(self, req: tm.HistoryQuery) -> tm.RunList:
        task = self._task(req.task_id)
        return tm.RunList(runs=[run_view(r) for r in self.store.runs(task.id, limit=req.limit)])

    async def _preview(self, req: tm.PreviewQuery) -> tm.SchedulePreview:
        zone = req.time_zone or self.zone_name()
        try:
            check(req.schedule, self._knobs.min_interval_s)
            now = self._clock()
            runs = upcoming(req.schedule, now, time_zone(zone), now, req.count)
        except ScheduleError as exc:
            raise ApiFailure("invalid", said(exc), {"schedule": str(exc)}) from None
        return tm.SchedulePreview(next_runs=runs, schedule_text=describe(req.schedule), time_zone=zone)

    # ---- helpers --------------------------------------------------------------------------------

    def _task(self, task_id: str) -> TaskRecord:
        if not is_valid_id(task_id):
            raise ApiFailure("invalid", say("task.bad_id"))
        try:
            return self.store.get(task_id)
        except NotFound:
            raise ApiFailure("not_found", say("task.not_found", id=task_id)) from None

    def _checked(self, draft: TaskDraft, zone: str) -> TaskDraft:
        try:
            time_zone(zone)
            check(draft.schedule, self._knobs.min_interval_s)
        except ScheduleError as exc:
            raise ApiFailure("invalid", said(exc), {"schedule": str(exc)}) from None
        if not draft.name.strip() or any(ord(c) < 32 for c in draft.name):
            raise ApiFailure("invalid", say("task.bad_name"), {"name": "invalid"})
        if draft.provider_id is not None and self._host.provider_kind(draft.provider_id) is None:
            raise ApiFailure(
                "invalid", say("task.unknown_provider", id=draft.provider_id),
                {"provider_id": "unknown"},
            )  # fmt: skip
        if draft.workspace is not None:
            path = Path(draft.workspace).expanduser()
            if not path.is_absolute() or not path.is_dir():
                message = say("task.bad_workspace", path=draft.workspace)
                raise ApiFailure("invalid", message, {"workspace": "not a folder"})
            draft = draft.model_copy(update={"workspace": str(path.resolve())})
        return draft

    async def _check_agent(self, draft: TaskDraft) -> None:
        """A task names an existing agent (issue 38); asked through the agents capability's
        own route, so this package does not depend on it."""
        if draft.agent_id is None:
            return
        found = await self._host.app.invoke("agents.get", {"agent_id": draft.agent_id})
        if not found["ok"]:
            raise ApiFailure(
                "not_found", say("agent.not_found", id=draft.agent_id[:64]), {"agent_id": "unknown"}
            )

    def _next(self, draft: TaskDraft, zone: str, anchor: datetime, after: datetime) -> datetime | None:
        if not draft.enabled:
            return None
        return next_after(draft.schedule, after, time_zone(zone), anchor)

    def _saved(self, task: TaskRecord) -> tm.TaskSaved:
        self._changed()
        warnings = [AUTONOMOUS_WARNING] if task.draft.approval_mode == "autonomous" else []
        return tm.TaskSaved(task=task_view(task), warnings=warnings)

    def _changed(self, removed: str | None = None) -> None:
        self.scheduler.poke()
        self._host.publish(TasksChanged(removed=removed))


def task_view(task: TaskRecord) -> tm.TaskView:
    d = task.draft
    return tm.TaskView(
        id=task.id, name=d.name, prompt=d.prompt, schedule=d.schedule, schedule_text=describe(d.schedule),
        provider_id=d.provider_id, model=d.model, workspace=d.workspace, approval_mode=d.approval_mode,
        chat_mode=d.chat_mode, missed_policy=d.missed_policy, enabled=d.enabled,
        wait_for_answers_s=d.wait_for_answers_s, time_zone=task.time_zone,
        next_run=task.next_run, last_status=task.last_status, last_run_at=task.last_run_at,
        chat_id=task.chat_id, created_at=task.created_at, agent_id=d.agent_id,
    )  # fmt: skip


def run_view(run: RunRecord) -> tm.RunView:
    return tm.RunView(
        id=run.id, task_id=run.task_id, status=run.status, trigger=run.trigger, slot=run.slot,
        started_at=run.started_at, finished_at=run.finished_at, duration_ms=run.duration_ms,
        chat_id=run.chat_id, trace_id=run.turn_id, answer=run.answer, error=run.error,
        refused_tools=list(run.refused_tools), waiting_approval=run.waiting_approval,
    )  # fmt: skip
