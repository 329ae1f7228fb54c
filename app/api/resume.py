"""Waiting turns survive a restart (issue 35 item 3).

While a turn waits on a question the core writes its progress through a `CheckpointSink`; the
one made here adds what starting the turn again needs (the turn's spec, the task's approval
mode and workspace, a lazy chat's title) and writes it on the store lane
(app/resume/store.py). After a quit, a crash or kill -9 `restored()` gives the questions to list
again, and `answer()` continues the turn from its pending call: the call runs (or is denied)
with the answer, finished calls are not repeated and the model is not asked again for what was
done (app/core/loop.py `Resumption`). The resumed turn is a normal running turn of its chat.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from app.contracts.capability import TurnOverrides
from app.contracts.checkpoint import CheckpointSink, TurnCheckpoint, TurnProgress, WaitingCall
from app.contracts.errors import ApiFailure, say
from app.contracts.turn import TurnSpec
from app.core.approvals import AlwaysNotOffered, Answer
from app.core.loop import Resumption
from app.resume.store import CheckpointStore, StoredCheckpoint
from app.store.lane import StoreLane
from app.store.timeutil import utc_now_iso

_log = logging.getLogger(__name__)

# Starts the resumed turn as a running turn of its chat (ChatService.resume).
StartResumed = Callable[[TurnCheckpoint, Resumption], Awaitable[object]]


@dataclass(frozen=True)
class Restored:
    """A question of a checkpointed turn, to list again after a restart."""

    stored: StoredCheckpoint
    wait: WaitingCall | None  # None: the checkpoint does not read (`stored.problem`)
    approval_id: str


class ResumeService:
    def __init__(self, store: CheckpointStore, lane: StoreLane) -> None:
        self._store = store
        self._lane = lane
        self.closing = False  # the app quits: waiting turns keep their checkpoints
        self._start: StartResumed | None = None
        self._busy: Callable[[str], bool] = lambda _chat: False
        self._provider: Callable[[str], object] = lambda _pid: None

    def bind(
        self, start: StartResumed, busy: Callable[[str], bool], provider: Callable[[str], object]
    ) -> None:
        """`start`: ChatService.resume; `busy`: whether a chat runs a turn now; `provider`: the
        turn's provider by id (raises when it was removed)."""
        self._start = start
        self._busy = busy
        self._provider = provider

    def sink(
        self, spec: TurnSpec, overrides: TurnOverrides | None, reserved: tuple[str, bool] | None
    ) -> CheckpointSink:
        """The checkpoint writer of one turn. `reserved`: a lazy chat's (title, title_auto)."""
        return _Sink(self, spec, overrides, reserved)

    # ---- after a restart ---------------------------------------------------------------------

    async def restored(self) -> list[Restored]:
        """Every question a checkpointed turn waits on. Checkpoints of turns that were stored
        after all (a kill between storing and forgetting) are dropped; one that does not read
        is logged and listed as it is (its answer then says why it cannot go on)."""
        found = await self._lane.write(self._store.drop_stored)
        if found:
            _log.info("dropped %d checkpoint(s) of turns that were stored", len(found))
        out: list[Restored] = []
        for stored in await self._lane.read(self._store.all):
            if stored.checkpoint is None:
                _log.warning(
                    "the checkpoint of turn %s in chat %s: %s", stored.turn_id, stored.chat_id, stored.problem
                )
                out.extend(Restored(stored, None, a) for a in stored.approval_ids)
                continue
            out.extend(Restored(stored, w, w.approval_id) for w in stored.checkpoint.progress.waiting)
        return out

    async def find(self, approval_id: str) -> StoredCheckpoint | None:
        return await self._lane.read(lambda: self._store.by_approval(approval_id))

    def check(self, stored: StoredCheckpoint, approval_id: str, decision: Answer) -> TurnCheckpoint:
        """The checkpoint an answer continues; ApiFailure when it cannot (nothing is changed)."""
        cp = stored.checkpoint
        if cp is None:
            raise ApiFailure("invalid", say("approval.resume_unreadable", reason=stored.problem or "unknown"))
        wait = next((w for w in cp.progress.waiting if w.approval_id == approval_id), None)
        if wait is None:
            raise ApiFailure("not_found", say("approval.not_pending"))
        if decision == "always" and wait.grant is None:
            raise AlwaysNotOffered('"Always allow" is not offered for this request; answer "once" or "deny".')
        return cp

    async def vet(self, approval_id: str, decision: Answer) -> None:
        """Before an answer to a restored question counts: ApiFailure (nothing changed) when its
        turn cannot go on — the checkpoint is gone or unreadable, or the chat runs a turn."""
        stored = await self.find(approval_id)
        if stored is None:
            raise ApiFailure("not_found", say("approval.not_pending"))
        cp = self.check(stored, approval_id, decision)
        if self._busy(stored.chat_id):
            raise ApiFailure("busy", say("approval.resume_busy"))
        self._provider(cp.provider_id)  # a removed provider: its own clear error, nothing changed

    async def go_on(self, approval_id: str, decision: Answer) -> list[str]:
        """Continue the checkpointed turn waiting on `approval_id` with `decision` (the answer
        was recorded). Returns the turn's other restored questions: the resumed turn asks them
        again (new items), so these are closed. Nothing, logged, when the turn cannot go on: the
        checkpoint stays for the next start."""
        try:
            stored = await self.find(approval_id)
            if stored is None:
                return []
            cp = self.check(stored, approval_id, decision)
            assert self._start is not None, "ResumeService.bind was not called"
            await self._start(cp, Resumption(cp.progress, {approval_id: decision}))
        except Exception:  # the answer is recorded; the turn is offered again after a restart
            _log.warning("could not continue the turn waiting on %s", approval_id, exc_info=True)
            return []
        return [w.approval_id for w in cp.progress.waiting if w.approval_id != approval_id]

    # ---- deleting ----------------------------------------------------------------------------

    async def forget_chat(self, chat_id: str) -> list[str]:
        """The chat is deleted: its checkpoints go; the approval ids they waited on."""
        return await self._lane.write(lambda: self._store.drop_chat(chat_id))

    async def forget_task(self, task_id: str) -> list[str]:
        return await self._lane.write(lambda: self._store.drop_task(task_id))


class _Sink:
    def __init__(
        self,
        service: ResumeService,
        spec: TurnSpec,
        overrides: TurnOverrides | None,
        reserved: tuple[str, bool] | None,
    ) -> None:
        self._service = service
        self._spec = spec
        self._overrides = overrides
        self._reserved = reserved
        self._created = utc_now_iso()

    async def save(self, progress: TurnProgress) -> None:
        spec, o = self._spec, self._overrides
        cp = TurnCheckpoint(
            chat_id=spec.chat_id,
            turn_id=spec.turn_id,
            task_id=o.task_id if o else None,
            provider_id=spec.provider_id,
            model=spec.model,
            user_text=spec.user_text,
            mentions=spec.mentions,
            attachments=spec.attachments,
            parent_cursor=spec.parent_cursor,
            regenerate=spec.regenerate,
            approval_mode=o.approval_mode if o else None,
            workspace=o.workspace if o else None,
            asker=o.asker if o else None,
            reserved_title=self._reserved[0] if self._reserved else None,
            reserved_title_auto=self._reserved[1] if self._reserved else True,
            agent_id=spec.scope.agent_id,
            created_at=self._created,
            progress=progress,
        )
        store = self._service._store
        try:
            await self._service._lane.write(lambda: store.save(cp))
        except Exception:  # the question still waits; only going on after a restart is lost
            _log.warning("could not checkpoint turn %s", spec.turn_id, exc_info=True)

    async def drop(self) -> None:
        store, turn_id = self._service._store, self._spec.turn_id
        try:
            await self._service._lane.write(lambda: store.drop(turn_id))
        except Exception:  # listed again after a restart; `restored` drops it if the turn was stored
            _log.warning("could not forget the checkpoint of turn %s", turn_id, exc_info=True)

    def drop_soon(self) -> None:
        store, turn_id = self._service._store, self._spec.turn_id
        lane = self._service._lane
        lane.write_later(lambda: store.drop(turn_id), f"the end of turn {turn_id}'s checkpoint")

    def closing(self) -> bool:
        return self._service.closing
