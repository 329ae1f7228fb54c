"""What the server needs from the application facade (`app/api`), as structural types.

The server is an adapter: it only forwards `invoke` calls and relays bus events, so it depends on
this narrow shape instead of the concrete `CashCodeApp` (tests pass a small stand-in).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel

from app.contracts.events import AppEvent

EventCallback = Callable[[AppEvent], None]
# Route name -> (request model, response model), as in `app/api/route_types.py`.
RouteTypes = Mapping[str, tuple[type[BaseModel], type[BaseModel]]]
Unsubscribe = Callable[[], None]


class EventSource(Protocol):
    def subscribe(self, callback: EventCallback) -> Unsubscribe: ...


class ServedApp(Protocol):
    """The facade as the HTTP adapter sees it."""

    @property
    def bus(self) -> EventSource: ...

    async def invoke(self, route: str, payload: Mapping[str, Any]) -> Mapping[str, Any]: ...

    def routes(self) -> Mapping[str, Any]:
        """The routes this build serves (names → handlers); REST answers 501 for the others."""
        ...

    async def aclose(self) -> None: ...
