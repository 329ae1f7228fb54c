"""One turn from start to end: events, the loop, and all-or-nothing persistence (SPEC S3.2)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Literal, TypeVar

from app.contracts.errors import DatabaseBusy
from app.contracts.events import ErrorInfo, TurnCancelled, TurnDone, TurnFailed, TurnStarted
from app.contracts.messages import Message
from app.contracts.provider import ProviderError
from app.contracts.turn import TurnSpec
from app.core.context import TurnDeps
from app.core.history_repair import repair_history
from app.core.loop import AgentLoop, Resumption
from app.core.progress import ProgressTracker

_log = logging.getLogger(__name__)
T = TypeVar("T")

# A stopped turn's partial answer waits at most this for the database: Stop answers at once, and
# a turn whose partial answer could not be stored stays retryable (decision 112).
STOP_STORE_WAIT_MS = 300
# A finished answer is worth waiting for: while the database stays locked, storing it is tried
# again (each try waits the runner's own bound) for this long; the UI says the database is busy.
STORE_PATIENCE_S = 30.0
STORE_RETRY_PAUSE_S = 0.5


@dataclass(frozen=True)
class TurnOutcome:
    status: Literal["done", "failed"]
    text: str = ""
    error: ErrorInfo | None = None


class TurnStopped(asyncio.CancelledError):
    """A stopped turn whose partial answer was stored (so there is nothing to retry)."""

    def __init__(self, *, stored: bool) -> None:
        super().__init__("turn stopped")
        self.stored = stored


class _Stops:
    """Whether a Stop arrived while the turn waited for its store (the work was not cut off)."""

    def __init__(self) -> None:
        self.seen = False

    async def to_the_end(self, work: Awaitable[T]) -> T:
        """Await `work` to its end even when the turn is stopped meanwhile: it runs on a store
        thread and ends within its own wait, and only its result says whether the turn was
        stored."""
        task = asyncio.ensure_future(work)
        while True:
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                self.seen = True
                if task.done():  # it ended as the Stop came: its own outcome counts
                    return task.result()


async def _store(spec: TurnSpec, deps: TurnDeps, stored: list[Message], *, patient: bool) -> None:
    """Write the turn off the loop, then run `on_stored` here. A locked database: a patient
    store tries again until STORE_PATIENCE_S (or a Stop) and then raises DatabaseBusy."""

    def append() -> None:
        deps.store.append_turn(spec.chat_id, spec.turn_id, stored, parent=spec.parent_cursor)

    deadline = time.monotonic() + STORE_PATIENCE_S
    stops = _Stops()
    while True:
        try:
            if patient:
                await stops.to_the_end(deps.runner.write(append))
            else:
                await stops.to_the_end(deps.runner.write(append, wait_ms=STOP_STORE_WAIT_MS))
            break
        except DatabaseBusy:
            if not patient or stops.seen or time.monotonic() > deadline:
                raise
        try:
            await asyncio.sleep(STORE_RETRY_PAUSE_S)
        except asyncio.CancelledError:
            stops.seen = True  # Stop while waiting to try again: one last try, then give up
    if deps.on_stored is not None:
        deps.on_stored(spec, stored)


def provider_error_info(exc: ProviderError) -> ErrorInfo:
    return ErrorInfo(
        code=exc.code, message=exc.message, retry_after_s=exc.retry_after_s, params=dict(exc.details)
    )


async def _forget(progress: ProgressTracker) -> None:
    """The turn ended: drop its checkpoint (if it had one) whatever happens meanwhile."""
    try:
        await _Stops().to_the_end(progress.drop())
    except Exception:  # the turn's own end counts; a stale checkpoint is dropped at the next start
        _log.warning("could not drop the checkpoint of a turn", exc_info=True)


async def run_turn(spec: TurnSpec, deps: TurnDeps, resume: Resumption | None = None) -> TurnOutcome:
    """Run the turn and store it when (and only when) it completes.

    `resume`: the turn goes on from its checkpoint after a restart (issue 35 item 3). While a
    question waits its progress is checkpointed (`deps.checkpoints`); whatever way the turn ends
    the checkpoint is dropped, except when the app quits while the question waits.
    """
    progress = ProgressTracker(deps.checkpoints)
    try:
        return await _run(spec, deps, resume, progress)
    except asyncio.CancelledError:
        if not progress.closing():
            progress.drop_soon()
        raise
    except BaseException:
        await _forget(progress)
        raise


async def _run(
    spec: TurnSpec, deps: TurnDeps, resume: Resumption | None, progress: ProgressTracker
) -> TurnOutcome:
    """Run the turn and store it when (and only when) it completes.

    Provider errors end the turn with `turn_failed`; cancellation emits `turn_cancelled` and
    propagates. Messages exist only in memory until the single `append_turn` call, which for a
    stopped turn stores what was answered so far (none: nothing), the answer marked stopped.
    """
    emit = deps.loop.emit
    chat_id, turn_id = spec.chat_id, spec.turn_id
    started = time.perf_counter()
    loop: AgentLoop | None = None
    emit(
        TurnStarted(
            chat_id=chat_id,
            turn_id=turn_id,
            provider_id=spec.provider_id,
            model=spec.model,
            user_text=spec.user_text,
        )
    )
    try:
        stored = await deps.runner.read(lambda: deps.store.history(spec.chat_id, leaf=spec.parent_cursor))
        repaired = repair_history(stored)  # never sent to a provider as stored when it is broken
        if repaired.changed:
            _log.warning("chat %s: history repaired for this turn: %s", chat_id, "; ".join(repaired.problems))
        history = repaired.messages
        user = spec.user_message()
        if spec.regenerate:  # the user message is stored already: the path ends with it
            if not history or history[-1].role != "user":
                raise ValueError("a regenerated turn must end its history at a user message")
            history, user = history[:-1], history[-1]
        blocks = [Message(role="user", content=b) for b in deps.context_blocks]
        context = [Message(role="system", content=deps.system_prompt), *history, *blocks]
        loop = AgentLoop(
            deps.loop, chat_id=spec.chat_id, turn_id=spec.turn_id, model=spec.model, progress=progress
        )
        result = await loop.run(context, user, resume)
    except ProviderError as exc:
        await _forget(progress)
        info = provider_error_info(exc)
        emit(TurnFailed(chat_id=chat_id, turn_id=turn_id, error=info))
        return TurnOutcome("failed", error=info)
    except asyncio.CancelledError:
        if progress.closing():  # the app quits while a question waits: it goes on after the restart
            emit(TurnCancelled(chat_id=chat_id, turn_id=turn_id))
            raise
        kept = loop.partial() if loop is not None else []
        try:
            if kept:
                partial = [m.for_history() for m in kept[1 if spec.regenerate else 0 :]]
                await _store(spec, deps, partial, patient=False)
        except Exception:  # Stop must still stop: a store failure loses the partial answer only
            _log.warning("could not store the stopped turn %s", turn_id, exc_info=True)
            kept = []
        progress.drop_soon()  # a stopped turn has no checkpoint
        emit(TurnCancelled(chat_id=chat_id, turn_id=turn_id))
        if kept:
            raise TurnStopped(stored=True) from None
        raise
    # A Stop while the answer is being stored does not split storing from announcing: the
    # store runs to its end and the turn is done (or, the database staying locked, failed).
    answer = [m.for_history() for m in result.messages[1 if spec.regenerate else 0 :]]
    await _store(spec, deps, answer, patient=True)
    await _forget(progress)
    emit(
        TurnDone(
            chat_id=chat_id,
            turn_id=turn_id,
            duration_ms=(time.perf_counter() - started) * 1000,
            text=result.final_text,
            hit_limit=result.hit_limit,
        )
    )
    return TurnOutcome("done", text=result.final_text)
