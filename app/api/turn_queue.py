"""`chat.queue`: messages that wait, per chat, to be sent as the next turns when the running one
ends (scripts over the API and `/ws`; the window keeps its own queue in its store, decision 427).

One drain task per chat with waiting messages: it waits for the chat's turn to end, then sends
the oldest through `chat.send` (the same checks and model choice as a typed message). A turn
that was stopped or failed drops what waits (reported in `turn_queue_changed.returned`): the
follow-ups were written for an answer that did not come.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from app.api import models as m
from app.contracts.events import TurnQueueChanged
from app.core.context import Emit
from app.core.turns import ChatBusy, TurnManager

_log = logging.getLogger(__name__)

# A chat being claimed by another surface's send is not running yet (nothing to wait on).
BUSY_PAUSE_S = 0.05

Send = Callable[[m.ChatSend], Awaitable[m.TurnRef]]


class TurnQueue:
    def __init__(self, turns: TurnManager, send: Send, emit: Emit) -> None:
        self._turns = turns
        self._send = send
        self._emit = emit
        self._waiting: dict[str, list[m.ChatSend]] = {}
        self._drains: dict[str, asyncio.Task[None]] = {}

    def texts(self, chat_id: str) -> list[str]:
        return [r.text for r in self._waiting.get(chat_id, [])]

    async def add(self, req: m.ChatSend) -> m.QueuedTurn:
        """Send now when the chat is idle and nothing waits; else wait behind the running turn."""
        waiting = self._waiting.get(req.chat_id)
        if not waiting and not self._turns.is_running(req.chat_id):
            ref = await self._send(req)
            return m.QueuedTurn(chat_id=req.chat_id, position=0, turn_id=ref.turn_id)
        if waiting is None:
            waiting = self._waiting[req.chat_id] = []
        waiting.append(req)
        self._changed(req.chat_id)
        if req.chat_id not in self._drains:
            loop = asyncio.get_running_loop()
            self._drains[req.chat_id] = loop.create_task(self._drain(req.chat_id), name="queue")
        return m.QueuedTurn(chat_id=req.chat_id, position=len(waiting))

    def drop(self, chat_id: str) -> list[str]:
        """Stop: what waits is not sent (returned to whoever asks, and in the event)."""
        dropped = self.texts(chat_id)
        self._waiting.pop(chat_id, None)
        task = self._drains.pop(chat_id, None)
        if task is not None:
            task.cancel()
        if dropped:
            self._changed(chat_id, returned=dropped)
        return dropped

    async def aclose(self) -> None:
        tasks = list(self._drains.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    def _changed(self, chat_id: str, returned: list[str] | None = None) -> None:
        self._emit(TurnQueueChanged(chat_id=chat_id, texts=self.texts(chat_id), returned=returned or []))

    async def _drain(self, chat_id: str) -> None:
        try:
            while self._waiting.get(chat_id):
                await self._turns.wait(chat_id)
                if self._turns.is_running(chat_id):
                    continue  # another surface started a turn first: wait for that one too
                if self._turns.last_failed(chat_id):
                    self._drains.pop(chat_id, None)
                    self.drop(chat_id)
                    return
                req = self._waiting[chat_id].pop(0)
                self._changed(chat_id)
                try:
                    await self._send(req)
                except ChatBusy:  # a turn is starting from another surface: wait for it
                    self._waiting[chat_id].insert(0, req)
                    await asyncio.sleep(BUSY_PAUSE_S)
                except Exception:  # a refused message (deleted chat, no model): drop it, say so
                    _log.warning("chat %s: a queued message could not be sent", chat_id, exc_info=True)
                    self._changed(chat_id, returned=[req.text])
        finally:
            if self._drains.get(chat_id) is asyncio.current_task():
                del self._drains[chat_id]
            if not self._waiting.get(chat_id):
                self._waiting.pop(chat_id, None)
