"""A stored history that breaks the message invariants is repaired before it reaches a provider
(issue 24 item 4). Providers refuse — or worse, misread — two user messages in a row, a tool
result without its call, or a call without its result; such a history can come from another
program writing the database or from an older build. The stored rows are left as they are (the
user sees what is there); only the request is made well-formed, and the caller logs it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.contracts.messages import Message

NO_ANSWER = "[no answer to this message was stored]"
NO_RESULT = "[no result of this tool call was stored]"


@dataclass
class Repaired:
    messages: list[Message] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)  # what was changed, for the log


def repair(history: Sequence[Message]) -> Repaired:
    out = Repaired()
    pending: dict[str, str] = {}  # call id -> tool name, calls still waiting for a result

    def close_calls() -> None:
        for call_id, name in pending.items():
            out.messages.append(Message(role="tool", content=NO_RESULT, tool_call_id=call_id, name=name))
            out.fixes.append(f"added a missing result for tool call {call_id}")
        pending.clear()

    for message in history:
        if message.role == "tool":
            if message.tool_call_id not in pending:
                out.fixes.append(f"dropped a tool result without its call ({message.tool_call_id})")
                continue
            pending.pop(message.tool_call_id, None)
            out.messages.append(message)
            continue
        close_calls()
        if message.role == "user" and out.messages and out.messages[-1].role == "user":
            out.messages.append(Message(role="assistant", content=NO_ANSWER))
            out.fixes.append("added a placeholder answer between two user messages")
        out.messages.append(message)
        if message.role == "assistant":
            pending.update({c.id: c.name for c in message.tool_calls})
    close_calls()
    return out
