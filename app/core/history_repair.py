"""A stored history that breaks the conversation's invariants is repaired before it reaches a
provider (issue 24 item 4).

The app writes whole turns, so these shapes come from a damaged or hand-edited database or an
old importer: a tool result without the call it answers (providers refuse the request), a call
without its result (the same), two user messages in a row (some providers refuse, all read it
oddly). Repairs: orphan results and unanswered calls are left out, consecutive user messages
are joined. What was repaired is returned so the turn can log it (counts, never content).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.contracts.messages import Message


@dataclass
class Repaired:
    messages: list[Message]
    orphan_results: int = 0
    unanswered_calls: int = 0
    joined_user_messages: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.orphan_results or self.unanswered_calls or self.joined_user_messages)


def _answered_ids(messages: Sequence[Message], start: int) -> set[str]:
    """The tool_call_ids of the tool messages right after index `start`."""
    ids: set[str] = set()
    for m in messages[start + 1 :]:
        if m.role != "tool":
            break
        if m.tool_call_id:
            ids.add(m.tool_call_id)
    return ids


def repair_history(messages: Sequence[Message]) -> Repaired:
    out: list[Message] = []
    result = Repaired(out)
    open_calls: set[str] = set()  # calls of the last assistant message still awaiting results
    for i, m in enumerate(messages):
        if m.role == "tool":
            if m.tool_call_id in open_calls:
                open_calls.discard(m.tool_call_id)
                out.append(m)
            else:
                result.orphan_results += 1
            continue
        open_calls = set()
        if m.role == "assistant" and m.tool_calls:
            answered = _answered_ids(messages, i)
            kept = tuple(c for c in m.tool_calls if c.id in answered)
            result.unanswered_calls += len(m.tool_calls) - len(kept)
            if not kept and not m.content:
                continue
            m = m.model_copy(update={"tool_calls": kept}) if len(kept) != len(m.tool_calls) else m
            open_calls = {c.id for c in kept}
        if m.role == "user" and out and out[-1].role == "user":
            previous = out.pop()
            m = previous.model_copy(
                update={
                    "content": f"{previous.content}\n\n{m.content}".strip("\n"),
                    "mentions": (*previous.mentions, *m.mentions),
                    "attachments": (*previous.attachments, *m.attachments),
                }
            )
            result.joined_user_messages += 1
        out.append(m)
    for count, what in (
        (result.orphan_results, "tool results without their call"),
        (result.unanswered_calls, "tool calls without a result"),
        (result.joined_user_messages, "user messages in a row (joined)"),
    ):
        if count:
            result.problems.append(f"{count} {what}")
    return result
