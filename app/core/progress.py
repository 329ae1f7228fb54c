"""What a running turn has done, written to its checkpoint while a question waits (issue 35
item 3, app/contracts/checkpoint.py).

The loop hands over its message list and counts model calls; the tool-call runner says when a
question starts and ends and when a call of the current round finishes. A checkpoint exists only
while at least one question waits: it is written (whole, replacing the last one) before the
question is announced and after each sibling call that finishes meanwhile, and dropped when the
last question is answered or the turn ends. Writes are serialised so the newest state wins.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from app.contracts.checkpoint import CheckpointSink, SavedGrant, TurnProgress, WaitingCall
from app.contracts.messages import Message, ToolCall
from app.contracts.tools import ApprovalInfo


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class ProgressTracker:
    def __init__(self, sink: CheckpointSink | None) -> None:
        self._sink = sink
        self._messages: list[Message] = []
        self.steps = 0  # model calls made in this turn
        self._done: dict[str, Message] = {}
        self._waiting: dict[str, WaitingCall] = {}
        self._lock = asyncio.Lock()
        self.saved = False  # a checkpoint of this turn is in the database

    def track(self, messages: list[Message]) -> None:
        """The loop's list of the turn's new messages (read at each write, never changed here)."""
        self._messages = messages

    def new_round(self) -> None:
        """The tool calls of a new assistant message start."""
        self._done.clear()
        self._waiting.clear()

    async def resumed(self, done: list[Message]) -> None:
        """A turn going on from its checkpoint: the results that finished before the restart
        count as done, and the checkpoint goes now (the answered question must not be offered
        again; a question not answered yet is asked again, and checkpointed again)."""
        self._done = {m.tool_call_id: m for m in done if m.tool_call_id}
        self._waiting.clear()
        self.saved = True
        await self._write()

    async def waiting(
        self, call: ToolCall, approval_id: str, info: ApprovalInfo, *, blocked: str | None = None
    ) -> None:
        key = info.grant_key
        grant = None if key is None else SavedGrant(kind=key.kind, key=key.key, workspace=key.workspace)
        self._waiting[call.id] = WaitingCall(
            call_id=call.id,
            approval_id=approval_id,
            kind="approval" if blocked is None else "escalation",
            tool=call.name,
            title=info.title,
            detail=info.detail,
            argv=list(info.argv) if info.argv is not None else None,
            summary=info.summary,
            grant=grant,
            blocked=blocked,
            asked_at=_now(),
        )
        await self._write()

    async def answered(self, call_id: str) -> None:
        if self._waiting.pop(call_id, None) is not None:
            await self._write()

    async def finished(self, result: Message) -> None:
        if result.tool_call_id is None:
            return
        self._done[result.tool_call_id] = result
        if self._waiting:  # a sibling's question waits: its checkpoint must hold this result
            await self._write()

    async def drop(self) -> None:
        """The turn ended: no checkpoint stays behind."""
        self._waiting.clear()
        await self._write()

    def drop_soon(self) -> None:
        """The turn was stopped: the checkpoint goes in the background, so Stop is not held up
        by the database (the stopped turn's partial answer, if any, is stored first)."""
        self._waiting.clear()
        if self._sink is not None and self.saved:
            self._sink.drop_soon()
            self.saved = False

    async def _write(self) -> None:
        if self._sink is None:
            return
        async with self._lock:
            if self._waiting:
                self.saved = True  # before the write: a Stop meanwhile must still drop it
                await self._sink.save(
                    TurnProgress(
                        messages=list(self._messages),
                        steps=self.steps,
                        done=list(self._done.values()),
                        waiting=list(self._waiting.values()),
                    )
                )
            elif self.saved:
                await self._sink.drop()
                self.saved = False

    def closing(self) -> bool:
        """The app quits while this turn's question waits: keep the checkpoint."""
        return self._sink is not None and self.saved and self._sink.closing()
