"""One task run = one full agent turn through the app's own routes (`chats.create`,
`chat.send`, the bus events), in the task's chat, with the task's approval mode and workspace
(handed to the turn through `TurnOverrides` while the run's turn starts)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Protocol

from app.contracts.capability import TurnOverrides
from app.contracts.events import (
    AppEvent,
    ApprovalRequired,
    ApprovalResolved,
    ToolResultEvent,
    TurnCancelled,
    TurnDone,
    TurnFailed,
)
from app.contracts.replies import ModelRef
from app.tasks.board import OverrideBoard
from app.tasks.events import TaskRunFinished
from app.tasks.model import RunRecord, RunStatus, TaskRecord
from app.tasks.store import INTERRUPTED, TaskStore

_log = logging.getLogger(__name__)
# How the loop reports a call the policy refused (app/core/tool_calls.py).
REFUSED_PREFIX = "Error: this call is not allowed:"
Approvals = Literal["wait", "deny"]  # "deny": nobody can answer here (the CLI's foreground run)


class TaskApp(Protocol):
    async def invoke(self, route: str, payload: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def subscribe(self, callback: Callable[[AppEvent], None]) -> Callable[[], None]: ...


class RunFailure(Exception):
    """The run cannot start; the message is recorded as its reason."""


@dataclass
class _Watch:
    run_id: str
    chat_id: str
    approvals: Approvals
    end: asyncio.Future[AppEvent]
    turn_id: str | None = None
    refused: list[str] = field(default_factory=list)
    pending: set[str] = field(default_factory=set)  # the approvals the turn waits on now
    waiting: asyncio.Event = field(default_factory=asyncio.Event)
    resolved: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)


@dataclass(frozen=True)
class RunnerDeps:
    store: TaskStore
    app: Callable[[], TaskApp]
    publish: Callable[[AppEvent], None]
    clock: Callable[[], datetime]
    provider_known: Callable[[str], bool]
    # How often a waiting run looks at the clock (its limit is counted on `clock`, so a clock
    # moved by a test or a suspended machine is seen at the next look).
    recheck_s: float = 30.0


class TaskRunner:
    def __init__(self, board: OverrideBoard, deps: RunnerDeps) -> None:
        self._board = board  # what `turn_overrides` answers while a run's turn starts
        self._d = deps

    async def execute(
        self,
        task: TaskRecord,
        run: RunRecord,
        *,
        fallback: ModelRef | None = None,
        approvals: Approvals = "wait",
    ) -> RunRecord:
        """Run `run` (claimed by `TaskStore.fire`) to its end and record it. Never raises except
        on cancellation (recorded as interrupted first)."""
        if run.status != "running":
            return self._finished(task, run)
        try:
            status, answer, error, refused, chat_id = await self._turn(task, run, fallback, approvals)
        except RunFailure as exc:
            status, answer, error, refused, chat_id = "failed", None, str(exc), (), None
        except asyncio.CancelledError:
            self._d.store.finish(run.id, status="failed", now=self._d.clock(), error=INTERRUPTED)
            raise
        except Exception:  # the run's boundary: record it, keep the app and the scheduler going
            _log.warning("task run %s failed", run.id, exc_info=True)
            status, answer, error, refused, chat_id = "failed", None, "the run failed unexpectedly", (), None
        done = self._d.store.finish(
            run.id, status=status, now=self._d.clock(), answer=answer, error=error, refused=refused
        )
        if chat_id and done.chat_id is None:
            self._d.store.started(run.id, chat_id=chat_id, turn_id=None)
            done = self._d.store.run(run.id)
        return self._finished(task, done)

    def _finished(self, task: TaskRecord, run: RunRecord) -> RunRecord:
        status = run.status
        assert status != "running"
        self._d.publish(
            TaskRunFinished(
                task_id=task.id, task_name=task.draft.name, run_id=run.id, status=status,
                open_chat_id=run.chat_id, error=run.error,
            )
        )  # fmt: skip
        return run

    async def _turn(
        self, task: TaskRecord, run: RunRecord, fallback: ModelRef | None, approvals: Approvals
    ) -> tuple[RunStatus, str | None, str | None, tuple[str, ...], str | None]:
        app = self._d.app()
        model = await self._model(app, task, fallback)
        workspace = _workspace(task)
        chat_id = await self._chat(app, task)
        loop = asyncio.get_running_loop()
        watch = _Watch(run_id=run.id, chat_id=chat_id, approvals=approvals, end=loop.create_future())
        unsubscribe = app.subscribe(lambda event: self._on_event(app, watch, event))
        overrides = TurnOverrides(
            approval_mode=task.draft.approval_mode,
            workspace=workspace,
            asker=task.draft.name,
            task_id=task.id,
        )
        self._board.set(chat_id, task.draft.prompt, overrides)
        try:
            payload: dict[str, Any] = {
                "chat_id": chat_id,
                "text": task.draft.prompt,
                "model": model.model_dump(),
            }
            sent = await app.invoke("chat.send", payload)
            self._board.clear(chat_id)
            if not sent["ok"]:
                raise RunFailure(f"could not start the turn: {sent['error']['message']}")
            watch.turn_id = sent["data"]["turn_id"]
            self._d.store.started(run.id, chat_id=chat_id, turn_id=watch.turn_id)
            end, timed_out = await self._wait(app, task, watch)
        finally:
            self._board.clear(chat_id)
            unsubscribe()
        refused = tuple(watch.refused)
        if timed_out:
            limit = _human(task.draft.wait_for_answers_s)
            return "failed", None, f"waiting for approval: no answer within {limit}", refused, chat_id
        if isinstance(end, TurnDone):
            note = _refused_note(refused)
            return "ok", end.text, note, refused, chat_id
        if isinstance(end, TurnFailed):
            return "failed", None, f"the turn failed: {end.error.message}", refused, chat_id
        return "failed", None, "the turn was stopped", refused, chat_id

    async def _wait(self, app: TaskApp, task: TaskRecord, watch: _Watch) -> tuple[AppEvent, bool]:
        """The turn's end event. A question left unanswered past the task's "wait for answers
        up to" expires in the Inbox, which stops the turn (no half turn is kept)."""
        limit = timedelta(seconds=task.draft.wait_for_answers_s)
        while True:
            if not await _first(watch.end, watch.waiting):
                return watch.end.result(), False
            watch.waiting.clear()
            deadline = self._d.clock() + limit
            while watch.pending and not watch.end.done():
                left = (deadline - self._d.clock()).total_seconds()
                if left <= 0:
                    await self._expire(app, watch)
                    return await watch.end, True
                try:
                    async with asyncio.timeout(min(left, self._d.recheck_s)):
                        await _first(watch.end, watch.resolved)
                except TimeoutError:
                    continue
                watch.resolved.clear()

    async def _expire(self, app: TaskApp, watch: _Watch) -> None:
        for approval_id in list(watch.pending):
            answered = await app.invoke("inbox.answer", {"id": approval_id, "via": "timeout"})
            if not answered["ok"]:
                _log.info("inbox item %s did not expire: %s", approval_id, answered["error"]["message"])
        if not watch.end.done():  # answered meanwhile, or not in the Inbox: stop the turn here
            await app.invoke("chat.cancel", {"chat_id": watch.chat_id})

    def _on_event(self, app: TaskApp, watch: _Watch, event: AppEvent) -> None:
        if getattr(event, "chat_id", None) != watch.chat_id or watch.end.done():
            return
        if watch.turn_id is not None and getattr(event, "turn_id", watch.turn_id) != watch.turn_id:
            return
        if isinstance(event, ToolResultEvent) and not event.ok and event.output.startswith(REFUSED_PREFIX):
            watch.refused.append(event.name)
        elif isinstance(event, ApprovalRequired):
            if watch.approvals == "deny":
                watch.refused.append(event.tool)
                # Nobody can answer a foreground CLI run: the model is told no one was asked
                # (not "the user denied"), as eval runs do (issue 40 item 17).
                answer = {"approval_id": event.approval_id, "decision": "deny", "unattended": True}
                task = asyncio.get_running_loop().create_task(app.invoke("chat.approve", answer))
                watch.tasks.add(task)
                task.add_done_callback(watch.tasks.discard)
            else:  # the desktop raises its approval notification for this same event
                watch.pending.add(event.approval_id)
                self._d.store.waiting(watch.run_id, True)
                watch.waiting.set()
        elif isinstance(event, ApprovalResolved):
            watch.pending.discard(event.approval_id)
            self._d.store.waiting(watch.run_id, bool(watch.pending))
            watch.resolved.set()
        elif isinstance(event, TurnDone | TurnFailed | TurnCancelled):
            watch.end.set_result(event)

    async def _model(self, app: TaskApp, task: TaskRecord, fallback: ModelRef | None) -> ModelRef:
        draft = task.draft
        if draft.provider_id is not None and not self._d.provider_known(draft.provider_id):
            raise RunFailure(
                f"the task's provider {draft.provider_id!r} no longer exists: "
                "edit the task and choose another"
            )
        chosen = fallback
        if chosen is None and draft.provider_id is None and draft.agent_id is not None:
            agent = await app.invoke("agents.get", {"agent_id": draft.agent_id})  # its own model
            spec = agent["data"]["spec"] if agent["ok"] else {}
            if spec.get("provider_id") and spec.get("model"):
                chosen = ModelRef(provider_id=spec["provider_id"], model=spec["model"])
        if chosen is None:
            settings = await app.invoke("settings.get", {})
            last = settings["data"].get("last_model") if settings["ok"] else None
            chosen = ModelRef.model_validate(last) if last else None
        provider_id = draft.provider_id or (chosen.provider_id if chosen else None)
        model = draft.model or (chosen.model if chosen and chosen.provider_id == provider_id else None)
        if provider_id is None or model is None:
            raise RunFailure("no model chosen: give the task a provider and a model (or pick one in the app)")
        return ModelRef(provider_id=provider_id, model=model)

    async def _chat(self, app: TaskApp, task: TaskRecord) -> str:
        agent = task.draft.agent_id or "default"
        if task.draft.chat_mode == "same_chat" and task.chat_id is not None:
            found = await app.invoke("chats.get", {"chat_id": task.chat_id, "limit": 1})
            # A task moved to another agent starts a new chat: a chat keeps its agent.
            if found["ok"] and found["data"]["chat"].get("agent_id", "default") == agent:
                return task.chat_id
        title = task.draft.name
        if task.draft.chat_mode == "new_chat":
            title = f"{task.draft.name} · {self._d.clock().strftime('%Y-%m-%d %H:%M')} UTC"
        created = await app.invoke("chats.create", {"title": title[:200], "agent_id": agent})
        if not created["ok"]:
            raise RunFailure(f"could not create the task's chat: {created['error']['message']}")
        chat_id: str = created["data"]["id"]
        if task.draft.chat_mode == "same_chat":
            self._d.store.set_chat(task.id, chat_id)
        return chat_id


async def _first(end: asyncio.Future[AppEvent], flag: asyncio.Event) -> bool:
    """Wait for the end or the flag; True when the flag came first (the end not yet there)."""
    if end.done():
        return False
    flagged: asyncio.Future[Any] = asyncio.ensure_future(flag.wait())
    waited: set[asyncio.Future[Any]] = {end, flagged}
    try:
        await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
    finally:
        flagged.cancel()
    return not end.done()


def _workspace(task: TaskRecord) -> Path | None:
    if task.draft.workspace is None:
        return None
    path = Path(task.draft.workspace)
    if not path.is_dir():
        raise RunFailure(f"the task's workspace {task.draft.workspace!r} is not a folder any more")
    return path


def _refused_note(refused: tuple[str, ...]) -> str | None:
    if not refused:
        return None
    names = ", ".join(dict.fromkeys(refused))
    return f"refused by the task's approval mode: {names}"


def _human(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{int(seconds // 3600)} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"
