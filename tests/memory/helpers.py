"""Small helpers shared by the memory tests."""

from __future__ import annotations

from app.api.app import CashCodeApp
from app.contracts.events import ApprovalRequired
from app.memory.capability import MemoryCapability
from tests.api.conftest import Recorder


async def approval(events: Recorder, turn_id: str) -> ApprovalRequired:
    await events.until(lambda: "approval_required" in events.types(turn_id))
    found: ApprovalRequired = next(
        e for e in events.events if isinstance(e, ApprovalRequired) and e.turn_id == turn_id
    )
    return found


def memory_cap(app: CashCodeApp) -> MemoryCapability:
    cap = next(c for c in app.capabilities if isinstance(c, MemoryCapability))
    return cap
