"""TurnManager: concurrent turns across chats, one at a time per chat, Stop and Retry.

Each turn runs in its own task on the core loop. Stop cancels that task: the model stream is
closed, pending approvals resolve as cancelled and tool tasks are cancelled (the exec tool kills
its process group); what was answered so far is stored, marked stopped (`run_turn`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from app.contracts.errors import DATABASE_BUSY_MESSAGE, DatabaseBusy, say
from app.contracts.events import ErrorInfo, TurnCancelled, TurnFailed
from app.contracts.turn import TurnSpec
from app.core.context import Emit
from app.core.steer import SteerInbox
from app.core.turn import TurnOutcome, TurnStopped

STOP_TIMEOUT_S = 1.0

TurnJob = Callable[[TurnSpec], Awaitable[TurnOutcome]]


class ChatBusy(Exception):
    """The chat already runs a turn."""


class NothingToRetry(LookupError):
    """The chat has no failed or cancelled turn to re-run."""


class NotSteerable(LookupError):
    """The chat runs no turn that still takes steer text (idle, or its turn is ending)."""


@dataclass
class _Running:
    spec: TurnSpec
    task: asyncio.Task[TurnOutcome]
    steers: SteerInbox | None = None


class TurnManager:
    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._running: dict[str, _Running] = {}
        self._retryable: dict[str, TurnSpec] = {}

    def is_running(self, chat_id: str) -> bool:
        return chat_id in self._running

    def running_chats(self) -> list[str]:
        return list(self._running)

    def start(self, spec: TurnSpec, job: TurnJob, steers: SteerInbox | None = None) -> None:
        """Start `job(spec)` in the background; `steers` is the inbox its loop drains (the
        same one `steer` fills). Raises ChatBusy."""
        if spec.chat_id in self._running:
            raise ChatBusy(say("chat.already_running", id=spec.chat_id))
        task = asyncio.get_running_loop().create_task(self._guard(spec, job), name=f"turn:{spec.turn_id}")
        self._running[spec.chat_id] = _Running(spec, task, steers)
        task.add_done_callback(lambda t: self._finished(spec, t))

    def steer(self, chat_id: str, text: str) -> str:
        """Give `text` to the chat's running turn at its next model call; returns the turn's id.
        Raises NotSteerable when no turn of the chat takes it any more."""
        running = self._running.get(chat_id)
        if running is None or running.steers is None or not running.steers.put(text):
            raise NotSteerable(say("chat.not_running", id=chat_id))
        return running.spec.turn_id

    def last_failed(self, chat_id: str) -> bool:
        """The chat's last turn failed or was cancelled (what Retry would run again)."""
        return chat_id in self._retryable

    def retry_spec(self, chat_id: str) -> TurnSpec:
        """The last failed or cancelled turn of the chat. Raises NothingToRetry."""
        spec = self._retryable.get(chat_id)
        if spec is None:
            raise NothingToRetry(say("chat.nothing_to_retry", id=chat_id))
        return spec

    async def cancel(self, chat_id: str, timeout_s: float = STOP_TIMEOUT_S) -> bool:
        """Stop the chat's turn; returns once it ended (or after `timeout_s`). False if idle."""
        running = self._running.get(chat_id)
        if running is None:
            return False
        running.task.cancel()
        await asyncio.wait({running.task}, timeout=timeout_s)
        return True

    async def wait(self, chat_id: str) -> None:
        """Wait until the chat's current turn (if any) has ended."""
        running = self._running.get(chat_id)
        if running is not None:
            await asyncio.wait({running.task})

    async def aclose(self) -> None:
        tasks = [r.task for r in self._running.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_TIMEOUT_S * 2)

    async def _guard(self, spec: TurnSpec, job: TurnJob) -> TurnOutcome:
        status = "failed"
        try:
            outcome = await job(spec)
            status = outcome.status
            return outcome
        except TurnStopped:
            status = "done"  # stored as far as it got: nothing to retry
            raise
        except asyncio.CancelledError:
            raise
        except DatabaseBusy:  # the answer could not be stored: say why, the turn can be retried
            info = ErrorInfo(code="database_busy", message=DATABASE_BUSY_MESSAGE)
            self._emit(TurnFailed(chat_id=spec.chat_id, turn_id=spec.turn_id, error=info))
            return TurnOutcome("failed", error=info)
        except Exception as exc:  # task boundary: a bug becomes turn_failed, not a lost task
            info = ErrorInfo(code="internal", message=f"Internal error: {type(exc).__name__}: {exc}")
            self._emit(TurnFailed(chat_id=spec.chat_id, turn_id=spec.turn_id, error=info))
            return TurnOutcome("failed", error=info)
        finally:
            # Settled inside the task (not in a done callback) so the chat is free again the
            # moment turn_done/turn_failed/turn_cancelled has been emitted.
            self._settle(spec, ok=status == "done")

    def _finished(self, spec: TurnSpec, task: asyncio.Task[TurnOutcome]) -> None:
        """Fallback for a task cancelled before its first step (the guard never ran)."""
        current = self._running.get(spec.chat_id)
        if current is not None and current.task is task:
            self._settle(spec, ok=False)
            self._emit(TurnCancelled(chat_id=spec.chat_id, turn_id=spec.turn_id))

    def _settle(self, spec: TurnSpec, *, ok: bool) -> None:
        current = self._running.get(spec.chat_id)
        if current is not None and current.spec.turn_id == spec.turn_id:
            del self._running[spec.chat_id]
            if current.steers is not None:
                current.steers.close()  # a stopped or failed turn takes no more
        if ok:
            self._retryable.pop(spec.chat_id, None)
        else:
            self._retryable[spec.chat_id] = spec
