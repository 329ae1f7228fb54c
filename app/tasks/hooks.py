"""What every process builds of the tasks capability: the turn hook and lazy doors to the rest.

`cashcode ask` builds every capability, so this module imports only the contracts: the
scheduler, store, route models and schedule code load on the first route call or at `start()`
(desktop, tray, serve), never for a plain turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, Handler, TurnOverrides
from app.contracts.turn import TurnSpec
from app.tasks.board import OverrideBoard

if TYPE_CHECKING:
    from app.host.host import Host
    from app.tasks.capability import TasksCapability


class TasksHooks(Capability):
    name = "tasks"

    def __init__(self, host: Host) -> None:
        self._host = host
        self.board = OverrideBoard()
        self._full: TasksCapability | None = None

    def full(self) -> TasksCapability:
        if self._full is None:
            from app.tasks.capability import TasksCapability

            self._full = TasksCapability(self._host, self.board)
        return self._full

    def turn_overrides(self, spec: TurnSpec) -> TurnOverrides | None:
        return self.board.get(spec.chat_id, spec.user_text)

    def routes(self) -> Mapping[str, Handler]:
        return self.full().routes()

    async def start(self) -> None:
        await self.full().start()

    async def aclose(self) -> None:
        if self._full is not None:
            await self._full.aclose()
