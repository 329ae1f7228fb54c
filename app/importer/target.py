"""`Target` over the running app: other capabilities by route name, chats and grants through the
core stores."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.contracts.messages import Message
from app.contracts.tools import GrantKey
from app.host.host import AppPort
from app.importer.items import Skip
from app.importer.models import ItemStatus
from app.store.approvals import SqliteApprovalLedger
from app.store.chat_rows import ChatRecord, StoredMessage, clean_title
from app.store.chats import ChatRepository
from app.store.timeutil import utc_now_iso


class AppTarget:
    """`Target` over the running app: routes by name, chats and grants through the stores."""

    def __init__(
        self,
        app: AppPort,
        chats: ChatRepository,
        ledger: SqliteApprovalLedger,
        available: Callable[[str], bool] | None = None,
    ) -> None:
        self._app = app
        self._chats = chats
        self._ledger = ledger
        self._available = available

    def has_route(self, route: str) -> bool:
        present = route in self._app.route_names()
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
        return self._chats.exists(chat_id)

    def chat_messages(self, chat_id: str) -> list[tuple[str, Message]] | None:
        if not self._chats.exists(chat_id):
            return None
        return [(s.turn_id, s.message) for s in self._chats.stored_messages(chat_id)]

    def write_chat(
        self, chat_id: str, title: str, turns: Sequence[tuple[str, Sequence[Message]]], *, replace: bool
    ) -> None:
        now = utc_now_iso()
        stored: list[StoredMessage] = []
        for turn_id, messages in turns:
            for message in messages:
                cursor = len(stored) + 1
                stored.append(StoredMessage(cursor, turn_id, message, now, cursor - 1))
        record = ChatRecord(chat_id, clean_title(title), False, now, now)
        self._chats.insert_imported(record, stored, replace=replace)

    def add_grant(self, key: GrantKey) -> bool:
        """An imported grant arrives disabled (issue 23 item 4): the user enables it in the ledger."""
        if self._ledger.find(key) is not None:
            return False
        self._ledger.add(key, enabled=False)
        return True
