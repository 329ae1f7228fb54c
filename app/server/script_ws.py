"""`/ws`: the CashCode WebSocket protocol for scripts, mapped onto the same API and events as the UI.

Client frames (`{"type": ...}`): `message` (chat_id?, content, metadata.mentioned_skills /
selected_mcp_connectors, agent_id?), `ping`, `new_chat` (agent_id?), `attach` (chat_id),
`cancel` (chat_id), and (issue 35) `steer` (chat_id?, content: given to the running turn at its
next model call) and `queue` (chat_id?, content, metadata?: sent as the chat's next turn when the
running one ends; at once when it is idle). `agent_id` (issue 38) picks the agent of a chat the
frame creates; a chat that exists keeps its agent, and without one a new chat gets the default
agent (the seed's clients send none).
Server frames (`{"event": ...}`): `ready` (chat_id, client_id), `tool_call`, `tool_result`,
`delta`, `stream_end`, `done` (duration_sec), `error` (detail), and `pong` for `ping`; new ones a
client of the earlier app never receives unless it steers or queues: `steered` (chat_id,
stream_id, text: where the steer reached the model) and `queued` (chat_id, position).

Turns run through `app.invoke("chat.send")`, so the window sees a script's chat live. A script
cannot answer approval prompts: whatever the saved approval mode would ask about in a turn this
connection started is denied at once, and that tool's `tool_result` says so.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, WebSocket

from app.contracts.events import (
    AppEvent,
    ApprovalRequired,
    Delta,
    ToolCallEvent,
    ToolResultEvent,
    TurnCancelled,
    TurnDone,
    TurnFailed,
    TurnStarted,
    TurnSteered,
)
from app.server.contracts import ServedApp
from app.server.events_ws import QUEUE_LIMIT, EventRelay, serve_connection
from app.server.jsonbody import BadJson, parse_object

Frame = dict[str, Any]
DENIED_NOTE = "[denied: this tool needs approval, which a script cannot give under the saved approval mode]"


def _error(detail: str, chat_id: str | None = None) -> Frame:
    frame: Frame = {"event": "error", "detail": detail}
    if chat_id is not None:
        frame["chat_id"] = chat_id
    return frame


class BadMetadata(ValueError):
    """A message's `metadata` is not the shape the earlier app's clients send."""


def _items(metadata: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = metadata.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise BadMetadata(f"`metadata.{key}` must be a list of objects.")
    return value


def _text(item: Mapping[str, Any], *keys: str) -> str:
    for key in keys:
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise BadMetadata(f"`{key}` in the message metadata must be text.")
        return value
    return ""


def mentions_from(metadata: object) -> list[dict[str, str]]:
    """`metadata.mentioned_skills` / `selected_mcp_connectors` → `ChatSend.mentions` items.
    Raises BadMetadata on a wrong type (checked before anything is stored)."""
    if metadata is None:
        return []
    if not isinstance(metadata, Mapping):
        raise BadMetadata("`metadata` must be an object.")
    out: list[dict[str, str]] = []
    for item in _items(metadata, "mentioned_skills"):
        name = _text(item, "name")
        out.append({"kind": "skill", "name": name, "label": _text(item, "label") or name})
    for item in _items(metadata, "selected_mcp_connectors"):
        name = _text(item, "server", "name")
        out.append({"kind": "mcp", "name": name, "label": _text(item, "label") or name})
    return out


class _TurnState:
    def __init__(self, stream_id: int) -> None:
        self.stream_id = stream_id
        self.streaming = False
        self.started = time.monotonic()


class ScriptSession:
    """One `/ws` connection: its current chat, the chats it watches and the turns it started."""

    def __init__(self, app: ServedApp, ws: WebSocket) -> None:
        self._app = app
        self._ws = ws
        self._send_lock = asyncio.Lock()
        self.client_id = str(uuid.uuid4())
        self.chat_id = str(uuid.uuid4())
        self._existing: set[str] = set()  # chats known to exist (created or attached here)
        self._watched: set[str] = set()
        self._own_turns: set[str] = set()
        self._turns: dict[str, _TurnState] = {}
        self._denied_calls: set[str] = set()
        self._next_stream = 1
        self._agent: str | None = None  # `new_chat`'s agent, for the chat the next message creates
        # Texts this connection queued behind a running turn, per chat: the turn that starts
        # with the oldest one is this connection's own (its approvals are denied like any other).
        self._queued: dict[str, list[str]] = {}

    async def send(self, frame: Frame) -> None:
        async with self._send_lock:
            await self._ws.send_text(json.dumps(frame, ensure_ascii=False))

    async def ready(self) -> None:
        await self.send({"event": "ready", "chat_id": self.chat_id, "client_id": self.client_id})

    # ---- client → server -------------------------------------------------------------------

    async def handle_text(self, text: str) -> None:
        try:
            frame = parse_object(text, empty_ok=False)
        except BadJson as exc:
            await self.send(_error(f"Frames are JSON objects: {exc}"))
            return
        kind = frame.get("type")
        handlers = {
            "message": self._on_message,
            "ping": self._on_ping,
            "new_chat": self._on_new_chat,
            "attach": self._on_attach,
            "cancel": self._on_cancel,
            "steer": self._on_steer,
            "queue": self._on_queue,
        }
        handler = handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            await self.send(
                _error(f"Unknown frame type {str(kind)[:40]!r}; expected one of {sorted(handlers)}.")
            )
            return
        await handler(frame)

    async def _call(self, route: str, payload: Mapping[str, Any], chat_id: str | None) -> Any:
        """Invoke a route; on failure send an `error` frame and return None."""
        envelope = await self._app.invoke(route, payload)
        if envelope.get("ok"):
            return envelope.get("data")
        error = envelope.get("error") or {}
        await self.send(_error(str(error.get("message", "The request failed.")), chat_id))
        return None

    def _chat_id_of(self, frame: Mapping[str, Any]) -> str:
        value = frame.get("chat_id")
        return value if isinstance(value, str) and value else self.chat_id

    async def _on_message(self, frame: Mapping[str, Any], route: str = "chat.send") -> None:
        chat_id = self._chat_id_of(frame)
        content = frame.get("content")
        if not isinstance(content, str) or not content.strip():
            await self.send(_error("A message needs non-empty text in `content`.", chat_id))
            return
        try:
            mentions = mentions_from(frame.get("metadata"))
        except BadMetadata as exc:
            await self.send(_error(str(exc), chat_id))
            return
        agent = frame.get("agent_id", self._agent)
        if agent is not None and not isinstance(agent, str):
            await self.send(_error("`agent_id` must be an agent's id (see agents.list).", chat_id))
            return
        created = await self._ensure_chat(chat_id, agent)
        if created is None:
            return
        self._watched.add(chat_id)
        self.chat_id = chat_id
        payload = {"chat_id": chat_id, "text": content, "mentions": mentions}
        if route == "chat.queue":
            self._queued.setdefault(chat_id, []).append(content)
        ref = await self._call(route, payload, chat_id)
        waiting = self._queued.get(chat_id, [])
        if route == "chat.queue" and (ref is None or ref.get("turn_id")) and content in waiting:
            waiting.remove(content)  # refused, or sent at once: nothing waits
        if ref is not None and route == "chat.queue":
            await self.send({"event": "queued", "chat_id": chat_id, "position": ref["position"]})
        if ref is not None and ref.get("turn_id"):
            self._own_turns.add(str(ref["turn_id"]))
        elif ref is None and created:
            # The turn never started: leave no empty chat behind.
            await self._app.invoke("chats.delete", {"chat_id": chat_id})
            self._existing.discard(chat_id)

    async def _ensure_chat(self, chat_id: str, agent: str | None = None) -> bool | None:
        """Like the earlier app, a message may name a new chat (the id from `ready`, or any UUID
        the client made): create it. True if created now, False if it existed, None on error."""
        if chat_id in self._existing:
            return False
        payload = {"chat_id": chat_id, **({"agent_id": agent} if agent else {})}
        envelope = await self._app.invoke("chats.create", payload)
        error = envelope.get("error") or {}
        if not envelope.get("ok") and error.get("code") != "conflict":
            await self.send(_error(str(error.get("message", "Cannot use that chat id.")), chat_id))
            return None
        self._existing.add(chat_id)
        return bool(envelope.get("ok"))

    async def _on_ping(self, frame: Mapping[str, Any]) -> None:
        await self.send({"event": "pong"})

    async def _on_new_chat(self, frame: Mapping[str, Any]) -> None:
        self.chat_id = str(uuid.uuid4())
        agent = frame.get("agent_id")
        self._agent = agent if isinstance(agent, str) and agent else None
        await self.ready()

    async def _on_attach(self, frame: Mapping[str, Any]) -> None:
        chat_id = frame.get("chat_id")
        if not isinstance(chat_id, str):
            await self.send(_error("`attach` needs a chat_id."))
            return
        if await self._call("chats.get", {"chat_id": chat_id, "limit": 1}, chat_id) is None:
            return
        self.chat_id = chat_id
        self._watched.add(chat_id)
        self._existing.add(chat_id)
        await self.ready()

    async def _on_cancel(self, frame: Mapping[str, Any]) -> None:
        chat_id = self._chat_id_of(frame)
        self._queued.pop(chat_id, None)  # Stop drops what waited (chat.cancel)
        await self._call("chat.cancel", {"chat_id": chat_id}, chat_id)

    async def _on_steer(self, frame: Mapping[str, Any]) -> None:
        chat_id = self._chat_id_of(frame)
        content = frame.get("content")
        if not isinstance(content, str) or not content.strip():
            await self.send(_error("A steer needs non-empty text in `content`.", chat_id))
            return
        if await self._call("chat.steer", {"chat_id": chat_id, "text": content}, chat_id) is not None:
            self._watched.add(chat_id)  # its `steered` frame tells where the model got it

    async def _on_queue(self, frame: Mapping[str, Any]) -> None:
        await self._on_message(frame, route="chat.queue")

    # ---- events → server frames -------------------------------------------------------------

    async def handle_event(self, event: AppEvent) -> None:
        chat_id = getattr(event, "chat_id", None)
        turn_id = getattr(event, "turn_id", None)
        if chat_id not in self._watched or not isinstance(turn_id, str):
            return
        state = self._turns.get(turn_id)
        if state is None:
            state = self._turns[turn_id] = _TurnState(self._next_stream)
            self._next_stream += 1
        base: Frame = {"chat_id": chat_id, "stream_id": state.stream_id}
        if isinstance(event, TurnStarted):
            waiting = self._queued.get(chat_id)
            if waiting and waiting[0] == event.user_text:  # the turn this connection queued
                waiting.pop(0)
                self._own_turns.add(turn_id)
        elif isinstance(event, TurnSteered):
            await self._end_stream(state, base)
            await self.send({"event": "steered", **base, "text": event.text})
        elif isinstance(event, Delta):
            if event.channel == "text" and event.text:
                state.streaming = True
                await self.send({"event": "delta", **base, "text": event.text})
        elif isinstance(event, ToolCallEvent):
            await self._end_stream(state, base)
            await self.send({"event": "tool_call", **base, "tool_name": event.name})
        elif isinstance(event, ApprovalRequired):
            await self._deny(event)
        elif isinstance(event, ToolResultEvent):
            result = event.output
            if event.call_id in self._denied_calls:
                self._denied_calls.discard(event.call_id)
                result = f"{DENIED_NOTE} {result}".strip()
            await self.send({"event": "tool_result", **base, "tool_name": event.name, "result": result})
        elif isinstance(event, TurnDone | TurnFailed | TurnCancelled):
            await self._finish(event, state, base)

    async def _end_stream(self, state: _TurnState, base: Frame) -> None:
        if state.streaming:
            state.streaming = False
            await self.send({"event": "stream_end", **base})

    async def _deny(self, event: ApprovalRequired) -> None:
        if event.turn_id not in self._own_turns:
            return  # a turn the window started: the window answers
        self._denied_calls.add(event.call_id)
        # Not found means someone (the window) answered first; nothing to report then.
        await self._app.invoke(
            "chat.approve", {"approval_id": event.approval_id, "decision": "deny", "via": "api"}
        )

    async def _finish(
        self, event: TurnDone | TurnFailed | TurnCancelled, state: _TurnState, base: Frame
    ) -> None:
        await self._end_stream(state, base)
        self._turns.pop(event.turn_id, None)
        self._own_turns.discard(event.turn_id)
        if isinstance(event, TurnFailed):
            await self.send(_error(event.error.message, event.chat_id))
        duration = (
            event.duration_ms / 1000 if isinstance(event, TurnDone) else time.monotonic() - state.started
        )
        await self.send({"event": "done", "chat_id": event.chat_id, "duration_sec": round(duration, 3)})


async def _receive_frames(ws: WebSocket, session: ScriptSession) -> None:
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:
            await session.send(_error("Frames are JSON text, not binary."))
            continue
        await session.handle_text(text)


async def _forward_events(relay: EventRelay, session: ScriptSession) -> None:
    while True:
        for event in await relay.next_batch():
            await session.handle_event(event)


async def _run(ws: WebSocket, session: ScriptSession, relay: EventRelay) -> None:
    await serve_connection(ws, relay, _receive_frames(ws, session), _forward_events(relay, session))


def script_ws_router(app: ServedApp, *, queue_limit: int = QUEUE_LIMIT) -> APIRouter:
    router = APIRouter()

    @router.websocket("/ws")
    async def script_socket(ws: WebSocket) -> None:
        await ws.accept()
        relay = EventRelay(queue_limit, 0.0)
        unsubscribe = app.bus.subscribe(relay.push)
        session = ScriptSession(app, ws)
        try:
            await session.ready()
            await _run(ws, session, relay)
        finally:
            unsubscribe()

    return router
