"""`Target` over the running app: other capabilities by route name, chats and grants through the
core stores."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from app.contracts.messages import Message
from app.contracts.tools import GrantKey
from app.importer.items import Skip
from app.importer.models import ItemStatus
from app.store.approvals import SqliteApprovalLedger
from app.store.chats import ChatRepository
from app.store.db import Database


class _Ctx(Protocol):
    @property
    def db(self) -> Database: ...

    @property
    def chats(self) -> ChatRepository: ...

    @property
    def ledger(self) -> SqliteApprovalLedger: ...


class BoundApp(Protocol):
    @property
    def ctx(self) -> _Ctx: ...

    async def invoke(self, route: str, payload: Mapping[str, Any] | None = None) -> dict[str, Any]: ...

    def routes(self) -> Mapping[str, Any]: ...


class AppTarget:
    """`Target` over the running app: routes by name, chats and grants through the stores."""

    def __init__(self, app: BoundApp, available: Callable[[str], bool] | None = None) -> None:
        self._app = app
        self._available = available

    def has_route(self, route: str) -> bool:
        present = route in self._app.routes()
        return present and (self._available is None or self._available(route))

    async def call(self, route: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        envelope = await self._app.invoke(route, payload)
        if envelope.get("ok"):
            data = envelope.get("data")
            return data if isinstance(data, dict) else {}
        error = envelope.get("error") or {}
        status: ItemStatus = "conflict" if error.get("code") == "conflict" else "failed"
        raise Skip(status, str(error.get("message", f"{route} failed")))

    def chat_exists(self, chat_id: str) -> bool:
        return self._app.ctx.chats.exists(chat_id)

    def create_chat(self, chat_id: str, title: str) -> None:
        self._app.ctx.chats.create(title, chat_id=chat_id)

    def append_turn(self, chat_id: str, turn_id: str, messages: Sequence[Message]) -> list[int]:
        return [s.cursor for s in self._app.ctx.chats.append_turn(chat_id, turn_id, messages)]

    def add_grant(self, key: GrantKey) -> bool:
        if self._app.ctx.ledger.has(key):
            return False
        self._app.ctx.ledger.add(key)
        return True
