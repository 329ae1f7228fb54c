"""The approval gate: a turn waits here while a person decides (SPEC S4.3).

Pending requests are futures keyed by approval_id. An answer resolves the future; cancelling
the waiting task (Stop) resolves the request as "cancelled" so every surface can close its
prompt.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from app.contracts.events import AppEvent, ApprovalRequired, ApprovalResolved, InboxSurface
from app.contracts.tools import ApprovalInfo

# "unattended": refused because nobody is there to answer (an eval run); shown as "deny", but the
# model is told that no one was asked, not that the user said no.
Answer = Literal["deny", "once", "always", "unattended"]
Outcome = Literal["deny", "once", "always", "cancelled"]


# ---- what the approval policy decided for one prepared call --------------------------------


@dataclass(frozen=True)
class Allow:
    """Run without asking (read-only tool, safe command, standing grant, autonomous mode)."""

    sandboxed: bool = False  # only confined (the Sandboxed mode): the runner marks the call


@dataclass(frozen=True)
class Ask:
    info: ApprovalInfo


@dataclass(frozen=True)
class Deny:
    """Refused by policy (read-only mode, tool policy "never"); the model is told why."""

    message: str


PolicyDecision = Allow | Ask | Deny


@dataclass
class _Pending:
    chat_id: str
    turn_id: str
    future: asyncio.Future[Answer]
    can_always: bool = False


class AlwaysNotOffered(ValueError):
    """An "always" answer to a request that offered no standing grant (it is not run once)."""


class ApprovalGate:
    """Holds the pending approvals of all running turns."""

    def __init__(self, emit: Callable[[AppEvent], None]) -> None:
        self._emit = emit
        self._pending: dict[str, _Pending] = {}

    async def request(
        self,
        *,
        chat_id: str,
        turn_id: str,
        call_id: str,
        tool: str,
        info: ApprovalInfo,
        approval_id: str | None = None,
    ) -> Answer:
        """Announce the request and wait for the answer. Cancellation propagates (Stop).
        `approval_id`: chosen by the caller when it was checkpointed before (issue 35 item 3)."""
        approval_id = approval_id or str(uuid.uuid4())
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[approval_id] = _Pending(chat_id, turn_id, future, info.grant_key is not None)
        self._emit(
            ApprovalRequired(
                chat_id=chat_id,
                turn_id=turn_id,
                approval_id=approval_id,
                call_id=call_id,
                tool=tool,
                title=info.title,
                detail=info.detail,
                argv=list(info.argv) if info.argv is not None else None,
                can_always=info.grant_key is not None,
                summary=info.summary,
            )
        )
        try:
            return await future
        except asyncio.CancelledError:
            self._resolved(approval_id, "cancelled")
            raise
        finally:
            self._pending.pop(approval_id, None)

    def answer(self, approval_id: str, decision: Answer, answered_by: InboxSurface | None = None) -> bool:
        """Resolve a pending request. False when it is unknown or already resolved.
        (`answered_by`: the surface that gave the answer, told to every other view.)

        Raises AlwaysNotOffered (the request stays pending) for "always" where the request did not
        offer it: silently running once would not be what the person chose."""
        pending = self._pending.get(approval_id)
        if pending is None or pending.future.done():
            return False
        if decision == "always" and not pending.can_always:
            raise AlwaysNotOffered('"Always allow" is not offered for this request; answer "once" or "deny".')
        pending.future.set_result(decision)
        self._resolved(approval_id, "deny" if decision == "unattended" else decision, answered_by)
        return True

    def is_pending(self, approval_id: str) -> bool:
        pending = self._pending.get(approval_id)
        return pending is not None and not pending.future.done()

    def offers_always(self, approval_id: str) -> bool:
        pending = self._pending.get(approval_id)
        return pending is not None and pending.can_always

    def pending_ids(self, chat_id: str | None = None) -> list[str]:
        return [k for k, p in self._pending.items() if chat_id is None or p.chat_id == chat_id]

    def _resolved(self, approval_id: str, decision: Outcome, answered_by: InboxSurface | None = None) -> None:
        pending = self._pending.get(approval_id)
        if pending is None:
            return
        self._emit(
            ApprovalResolved(
                chat_id=pending.chat_id,
                turn_id=pending.turn_id,
                approval_id=approval_id,
                decision=decision,
                answered_by=answered_by,
            )
        )
