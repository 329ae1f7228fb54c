"""The Inbox (issue 35): every question a run asks, as one item every surface shows.

What it records: each `ApprovalRequired` the gate announces (exec, writes, Skill scripts, MCP
tools, sandbox escalations), each MCP elicitation form, and — read from the memory capability
when listed — the memory proposals awaiting review. The ApprovalGate stays the one place a turn
waits; this service only writes the item to the database (app/store/inbox.py) and hands the
first answer to the gate.

Answers from another process (`cashcode inbox approve` beside `serve` or the desktop) are written
to the row; the process whose run waits reads its own pending rows back every `poll_s` while it
has any (one indexed SELECT: nothing runs while nothing waits), and hands the answer on
(docs/decisions.md 401).
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from app.api.inbox_forms import FormError, checked_form, form_fields
from app.api.inbox_models import InboxAnswer
from app.api.resume import ResumeService
from app.contracts.errors import ApiFailure, say
from app.contracts.events import AppEvent, ApprovalRequired, ApprovalResolved, InboxChanged, SessionDeleted
from app.contracts.inbox import InboxItem, InboxOrigin, InboxStatus, InboxSurface
from app.core.approvals import Answer, ApprovalGate
from app.store.inbox import InboxRow, InboxStore
from app.store.lane import StoreLane
from app.store.timeutil import utc_now_iso
from app.support.process import pid_alive, process_start

_log = logging.getLogger(__name__)
POLL_S = 1.0  # how soon an answer given by another process reaches the waiting run
# Background store jobs of the Inbox at once: many questions asked together (100 chats) must
# not fill the store lane's queue (its bound refuses the rest as busy) nor hold up the routes.
LANE_SLOTS = 4
USER_PERMISSIONS = "user_permissions"  # warning code: the program runs with the user's rights
ELICITATION_EVENT = "mcp_elicitation"  # app/mcp/events.py McpElicitation (read by name: mcp may be absent)
PROPOSED_EVENT = "memory_proposed"  # app/memory/events.py MemoryProposed


@dataclass(frozen=True)
class Label:
    """Who asks for a chat's turns: a task names itself; `ask` says it is the CLI."""

    origin: InboxOrigin
    who: str = ""
    task_id: str | None = None


@dataclass(frozen=True)
class InboxDeps:
    store: InboxStore
    lane: StoreLane
    gate: ApprovalGate
    publish: Callable[[AppEvent], None]
    chat_title: Callable[[str], str | None]  # runs on the store lane
    cancel_turn: Callable[[str], Awaitable[None]]  # an expired approval stops its turn
    invoke: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]  # capability routes
    alive: Callable[[int, str | None], bool] = lambda pid, start: owner_alive(pid, start)
    poll_s: float = POLL_S
    # Questions asked before a restart: their answer continues the checkpointed turn (item 3).
    resume: ResumeService | None = None


class InboxService:
    def __init__(self, deps: InboxDeps) -> None:
        self._d = deps
        self._pid = os.getpid()
        self._start = process_start(self._pid)
        self._labels: dict[str, Label] = {}
        self._owned: dict[str, InboxItem] = {}  # items whose run waits in this process
        self._writes: dict[str, asyncio.Task[None]] = {}
        # Closes under way (Stop cancelled the question): an answer given meanwhile waits for the
        # close, so it is refused as "no longer pending" instead of winning a question nobody asks.
        self._closings: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._watcher: asyncio.Task[None] | None = None
        self._slots = asyncio.Semaphore(LANE_SLOTS)
        self.default_origin: InboxOrigin = "chat"

    # ---- questions listed again after a restart (issue 35 item 3, app/api/resume.py) ---------

    @property
    def owner(self) -> tuple[int, str | None]:
        """This process as an item's owner (pid, start time)."""
        return self._pid, self._start

    def adopt(self, items: list[InboxItem]) -> None:
        """Restored items this process owns now: an answer given here or by another process
        (read back by the watcher) continues the checkpointed turn here."""
        for item in items:
            self._owned[item.id] = item
        if self._owned and self._watcher is None:
            self._watcher = self._spawn(self._watch())

    async def changed(self, item_id: str, status: InboxStatus) -> None:
        await self._changed(item_id, status)

    def forget(self, ids: list[str], *, write: bool = True) -> None:
        """Items whose turn can never go on (its chat or task was deleted): gone from every view."""
        for item_id in ids:
            self._owned.pop(item_id, None)
        if write and ids:
            store = self._d.store
            self._d.lane.write_later(lambda: store.delete_ids(ids), "the inbox items of a deleted task")
            self._spawn(self._changed(ids[-1], "cancelled"))

    # ---- who asks ----------------------------------------------------------------------------

    def label(self, chat_id: str, label: Label | None) -> None:
        if label is None:
            self._labels.pop(chat_id, None)
        else:
            self._labels[chat_id] = label

    # ---- recording (events of this process) --------------------------------------------------

    def on_event(self, event: AppEvent) -> None:
        if isinstance(event, ApprovalRequired):
            self._record(self._approval(event), None)
        elif isinstance(event, ApprovalResolved) and event.decision == "cancelled":
            self._closing(event.approval_id, self._closed(event.approval_id, "cancelled", "cancelled", None))
        elif event.type == ELICITATION_EVENT:
            self._elicitation(event)
        elif event.type == PROPOSED_EVENT:
            self._spawn(self._changed(str(getattr(event, "proposal_id", "")), "pending"))
        elif isinstance(event, SessionDeleted):
            self.forget([k for k, i in self._owned.items() if i.chat_id == event.chat_id], write=False)
            self._d.lane.write_later(
                lambda: self._d.store.delete_chat(event.chat_id), "the chat's inbox items"
            )

    def _approval(self, e: ApprovalRequired) -> InboxItem:
        label = self._labels.get(e.chat_id) or Label(self.default_origin)
        return InboxItem(
            id=e.approval_id, kind="approval", chat_id=e.chat_id, turn_id=e.turn_id,
            task_id=label.task_id, who=label.who, origin=label.origin, tool=e.tool, title=e.title,
            detail=e.detail, argv=e.argv, summary=e.summary,
            warnings=[USER_PERMISSIONS] if e.argv else [], can_always=e.can_always,
            created_at=utc_now_iso(),
        )  # fmt: skip

    def _elicitation(self, event: AppEvent) -> None:
        item_id = str(getattr(event, "id", ""))
        if getattr(event, "closed", False):
            outcome = getattr(event, "outcome", None)
            if outcome == "timeout":
                self._spawn(self._closed(item_id, "expired", "cancel", "timeout"))
            elif outcome in ("accept", "decline", "cancel"):
                self._spawn(self._closed(item_id, "answered", str(outcome), "chat"))
            else:
                self._closing(item_id, self._closed(item_id, "cancelled", "cancel", None))
            return
        chat_id = str(getattr(event, "chat_id", "")) or None
        label = (self._labels.get(chat_id) if chat_id else None) or Label(self.default_origin)
        schema = dict(getattr(event, "requested_schema", {}) or {})
        server = str(getattr(event, "server", ""))
        item = InboxItem(
            id=item_id, kind="elicitation", chat_id=chat_id,
            turn_id=str(getattr(event, "turn_id", "")) or None,
            task_id=label.task_id, who=label.who, origin=label.origin,
            tool=str(getattr(event, "tool", "")) or server, title=server,
            detail=str(getattr(event, "message", "")), fields=form_fields(schema), created_at=utc_now_iso(),
        )  # fmt: skip
        self._record(item, schema)

    def _record(self, item: InboxItem, form: dict[str, Any] | None) -> None:
        self._owned[item.id] = item
        self._writes[item.id] = self._spawn(self._write(item, form))
        if self._watcher is None:
            self._watcher = self._spawn(self._watch())

    async def _write(self, item: InboxItem, form: dict[str, Any] | None) -> None:
        def write() -> None:
            title = self._d.chat_title(item.chat_id) if item.chat_id and not item.who else None
            stored = item.model_copy(update={"who": item.who or title or _fallback_who(item.origin)})
            self._d.store.add(stored, form=form, owner_pid=self._pid, owner_start=self._start)

        try:
            async with self._slots:
                await self._d.lane.write(write)
        except Exception:  # the question still waits in the gate; only the Inbox misses it
            _log.warning("could not record inbox item %s", item.id, exc_info=True)
            return
        finally:
            self._writes.pop(item.id, None)
        await self._changed(item.id, "pending")

    async def _closed(self, item_id: str, status: InboxStatus, answer: str, by: InboxSurface | None) -> None:
        """The run stopped asking (Stop, its turn ended, the form timed out)."""
        self._owned.pop(item_id, None)
        await self._written(item_id)
        try:
            async with self._slots:
                claim = await self._d.lane.write(
                    lambda: self._d.store.claim(item_id, answer=answer, fields=None, by=by, status=status)
                )
        except Exception:
            _log.warning("could not close inbox item %s", item_id, exc_info=True)
            return
        if claim.won:
            await self._changed(item_id, status)

    # ---- reading -----------------------------------------------------------------------------

    async def list(self, include_answered: bool) -> builtins.list[InboxItem]:
        rows = await self._d.lane.read(lambda: self._d.store.list(include_answered=include_answered))
        orphans = [r for r in rows if _orphan(r, self._d.alive)]
        if orphans:
            await self._d.lane.write(lambda: self._d.store.cancel_orphans(self._d.alive))
            rows = await self._d.lane.read(lambda: self._d.store.list(include_answered=include_answered))
        items = [r.item for r in rows]
        items += await self._memory_reviews()
        return sorted(items, key=lambda i: i.created_at)

    async def pending_count(self) -> int:
        count = await self._d.lane.read(self._d.store.pending_count)
        return count + len(await self._memory_reviews())

    async def _memory_reviews(self) -> builtins.list[InboxItem]:
        try:
            found = await self._d.invoke("dream.proposals", {})
        except Exception:  # the memory capability is absent or failing: no reviews to show
            _log.debug("no memory proposals", exc_info=True)
            return []
        if not found.get("ok"):
            return []
        return [
            InboxItem(
                id=p["id"],
                kind="memory_review",
                who="Memory",
                origin="chat",
                tool="dream",
                title=p.get("analysis", "")[:200],
                detail=p.get("diff", ""),
                created_at=p["created_at"],
            )  # fmt: skip
            for p in found["data"]["proposals"]
            if p.get("status") == "pending"
        ]

    # ---- answering ---------------------------------------------------------------------------

    async def answer(self, req: InboxAnswer) -> None:
        await self._settled(req.id)
        row = await self._d.lane.read(lambda: self._d.store.get(req.id))
        if row is None:
            await self._answer_unrecorded(req)
            return
        if row.item.status != "pending":
            raise _conflict(row.item)
        if row.item.kind == "approval":
            if req.via == "timeout":
                await self._claim(row, "deny", None, "timeout", "expired")
                return
            if req.decision is None:
                raise ApiFailure("invalid", say("inbox.decision_required"), {"decision": "required"})
            await self.answer_approval(req.id, req.decision, req.via)
            return
        if req.via == "timeout":
            await self._claim(row, "cancel", None, "timeout", "expired")
        elif req.decision == "deny":
            await self._claim(row, "decline", None, req.via, "answered")
        else:
            try:
                content = checked_form(row.form, req.fields)
            except FormError as exc:
                raise ApiFailure(
                    "invalid", say("inbox.bad_field", reason=str(exc)), {"fields": str(exc)}
                ) from None
            await self._claim(row, "accept", content, req.via, "answered")

    async def answer_approval(self, approval_id: str, decision: Answer, via: InboxSurface) -> None:
        """The one way an approval is answered (chat.approve and inbox.answer): the first answer
        wins; a later one gets `conflict` naming who answered."""
        await self._settled(approval_id)
        row = await self._d.lane.read(lambda: self._d.store.get(approval_id))
        if row is None:  # never recorded (its write failed): the gate still decides
            if not self._d.gate.answer(approval_id, decision, via):
                raise ApiFailure("not_found", say("approval.not_pending"))
            return
        if row.item.kind != "approval":
            raise ApiFailure("not_found", say("approval.not_pending"))
        if decision == "always" and not row.item.can_always:
            raise ApiFailure(
                "invalid", say("inbox.always_not_offered"), {"decision": "always is not offered"}
            )
        if row.item.resumable and self._d.resume is not None:  # nothing counts if it cannot go on
            await self._d.resume.vet(approval_id, decision)
        stored = "deny" if decision == "unattended" else decision
        await self._claim(row, stored, None, via, "answered", deliver=decision)

    async def _claim(
        self,
        row: InboxRow,
        answer: str,
        fields: dict[str, Any] | None,
        via: InboxSurface,
        status: InboxStatus,
        *,
        deliver: Answer | None = None,
    ) -> None:
        item_id = row.item.id
        claim = await self._d.lane.write(
            lambda: self._d.store.claim(item_id, answer=answer, fields=fields, by=via, status=status)
        )
        if not claim.won:
            if claim.row is None:
                raise ApiFailure("not_found", say("inbox.not_found", id=item_id))
            raise _conflict(claim.row.item)
        assert claim.row is not None
        await self._changed(item_id, status)
        await self._deliver(claim.row, deliver)

    async def _answer_unrecorded(self, req: InboxAnswer) -> None:
        reviews = {i.id for i in await self._memory_reviews()}
        if req.id in reviews:
            route = "dream.reject" if req.decision == "deny" else "dream.accept"
            done = await self._d.invoke(route, {"id": req.id})
            if not done["ok"]:
                error = done["error"]
                raise ApiFailure(
                    error["code"], error["message"], key=error.get("key", ""), params=error.get("params")
                )
            await self._changed(req.id, "answered")
            return
        if self._d.gate.is_pending(req.id) and req.decision is not None:
            await self.answer_approval(req.id, req.decision, req.via)
            return
        raise ApiFailure("not_found", say("inbox.not_found", id=req.id))

    # ---- handing answers to the waiting run ----------------------------------------------------

    async def _deliver(self, row: InboxRow, decision: Answer | None = None) -> None:
        """An answer (given here or by another process) reaches the run that waits here."""
        item = row.item
        if self._owned.pop(item.id, None) is None:
            return  # another process's run: it reads the answer from the database
        if item.kind == "approval":
            if item.status == "expired":
                if item.chat_id:
                    await self._d.cancel_turn(item.chat_id)  # stopped-turn rules: no half turn kept
                return
            if item.status == "answered" and item.answer in ("deny", "once", "always"):
                if item.resumable and self._d.resume is not None:  # asked before a restart
                    others = await self._d.resume.go_on(item.id, decision or item.answer)  # type: ignore[arg-type]
                    for other in others:  # asked again by the resumed turn, as new items
                        self._owned.pop(other, None)
                        await self._closed(other, "cancelled", "cancelled", None)
                    return
                self._d.gate.answer(item.id, decision or item.answer, item.answered_by)  # type: ignore[arg-type]
            return
        if item.kind == "elicitation":
            action = "cancel" if item.status != "answered" else (item.answer or "cancel")
            content = row.fields if action == "accept" else None
            reply = await self._d.invoke(
                "mcp.elicitation.answer", {"id": item.id, "action": action, "content": content}
            )
            if not reply.get("ok"):
                _log.warning("the answer to form %s was not taken: %s", item.id, reply.get("error"))

    async def _watch(self) -> None:
        """While runs of this process wait: look for answers other processes wrote."""
        try:
            while self._owned:
                await asyncio.sleep(self._d.poll_s)
                ids = [i for i in self._owned if i not in self._writes]
                if not ids:
                    continue
                try:
                    rows = await self._d.lane.read(partial(self._d.store.answered_among, ids))
                except Exception:  # e.g. the database briefly busy: look again next time
                    _log.debug("inbox poll failed", exc_info=True)
                    continue
                for row in rows:
                    if row.item.id in self._owned:
                        await self._changed(row.item.id, row.item.status)
                        await self._deliver(row)
        finally:
            self._watcher = None

    # ---- helpers -------------------------------------------------------------------------------

    def _closing(self, item_id: str, job: Awaitable[None]) -> None:
        task = self._spawn(job)
        self._closings[item_id] = task
        def done(finished: asyncio.Task[None]) -> None:
            if self._closings.get(item_id) is finished:  # not a later close of the same item
                del self._closings[item_id]

        task.add_done_callback(done)

    async def _written(self, item_id: str) -> None:
        pending = self._writes.get(item_id)
        if pending is not None:
            await asyncio.shield(pending)

    async def _settled(self, item_id: str) -> None:
        """Before an answer: the item's row is written and any close under way has landed."""
        await self._written(item_id)
        closing = self._closings.get(item_id)
        if closing is not None:
            await asyncio.shield(closing)

    async def _changed(self, item_id: str, status: InboxStatus) -> None:
        try:
            async with self._slots:
                count = await self.pending_count()
        except Exception:
            _log.debug("could not count the inbox", exc_info=True)
            count = len(self._owned)
        self._d.publish(InboxChanged(pending=count, item_id=item_id, status=status))

    def _spawn(self, job: Awaitable[None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def owner_alive(pid: int, start: str | None) -> bool:
    """Is the process whose run waits still there? Where that cannot be told (Windows: pid_alive
    says "no"), assume it is: cancelling a live run's question would be worse than listing a
    stale one."""
    return sys.platform == "win32" or pid_alive(pid, start)


def _orphan(row: InboxRow, alive: Callable[[int, str | None], bool]) -> bool:
    item = row.item
    return (
        item.status == "pending" and not item.resumable and row.owner_pid is not None
        and not alive(row.owner_pid, row.owner_start)
    )  # fmt: skip


def _conflict(item: InboxItem) -> ApiFailure:
    """Answered (or expired) first elsewhere: `conflict`, naming who. A cancelled item (its turn
    was stopped) was answered by nobody: it is simply no longer pending."""
    if item.status == "cancelled":
        return ApiFailure("not_found", say("approval.not_pending"))
    by = item.answered_by or item.status
    return ApiFailure("conflict", say("inbox.answered", by=by, status=item.status), {"answered_by": by})


def _fallback_who(origin: InboxOrigin) -> str:
    return {"quick_ask": "Quick Ask", "cli": "cashcode ask", "task": "Task", "api": "API"}.get(origin, "Chat")
