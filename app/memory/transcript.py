"""Messages rendered as plain text for the summary and Dream prompts."""

from __future__ import annotations

from collections.abc import Iterable

from app.contracts.messages import Message

TOOL_RESULT_CHARS = 2_000  # tool output is bulky and mostly re-derivable; keep its gist


def message_chars(message: Message) -> int:
    """What a message costs in the context, in characters (text plus tool-call arguments)."""
    return len(message.content) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls)


def render(messages: Iterable[Message]) -> str:
    out: list[str] = []
    for m in messages:
        if m.role == "tool":
            body = m.content
            if len(body) > TOOL_RESULT_CHARS:
                body = body[:TOOL_RESULT_CHARS] + " …[truncated]"
            out.append(f"[tool result {m.name or ''}]\n{body}")
            continue
        text = f"[{m.role}]\n{m.content}" if m.content else f"[{m.role}]"
        calls = "".join(f"\n→ calls {c.name}({c.arguments})" for c in m.tool_calls)
        out.append(text + calls)
    return "\n\n".join(out)
