"""The events of the part of a turn done before a restart (issue 35 item 3): a resumed turn
announces them again so an open chat draws the turn as it was, then goes on live."""

from __future__ import annotations

from collections.abc import Sequence

from app.contracts.events import Delta, ToolCallEvent, ToolResultEvent
from app.contracts.messages import Message
from app.core.context import Emit


def replay(emit: Emit, chat_id: str, turn_id: str, messages: Sequence[Message]) -> None:
    """`messages`: the turn's messages after its user message, in order."""
    for msg in messages:
        if msg.role == "assistant":
            if msg.content:
                emit(Delta(chat_id=chat_id, turn_id=turn_id, text=msg.content))
            for call in msg.tool_calls:
                emit(
                    ToolCallEvent(
                        chat_id=chat_id,
                        turn_id=turn_id,
                        call_id=call.id,
                        name=call.name,
                        arguments=call.arguments,
                    )
                )
        elif msg.role == "tool" and msg.tool_call_id is not None:
            emit(
                ToolResultEvent(
                    chat_id=chat_id,
                    turn_id=turn_id,
                    call_id=msg.tool_call_id,
                    name=msg.name or "",
                    ok=msg.tool_outcome in (None, "ok"),
                    output=msg.content,
                    denied=msg.tool_outcome == "denied",
                )
            )
