"""The chats and messages tables' records and row helpers, shared by the ChatRepository parts."""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.contracts.messages import AttachmentRef, Mention, Message, ToolCall, ToolOutcome
from app.store import branches as tree

MAX_TITLE = 200


@dataclass(frozen=True)
class ChatRecord:
    id: str
    title: str
    title_auto: bool  # True while the title is machine-made; a user rename sets it False
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class ChatActivity:
    message_count: int  # messages shown on the active path (app/store/visible.py)
    last_message_at: str | None


@dataclass(frozen=True)
class StoredMessage:
    cursor: int
    turn_id: str
    message: Message
    created_at: str
    parent_cursor: int = 0  # the previous message on its path (0: a first message)


@dataclass(frozen=True)
class SearchHit:
    chat_id: str
    chat_title: str
    cursor: int
    role: str  # "user" or "assistant"
    snippet: str  # a short excerpt around the first match
    created_at: str


def clean_title(title: str) -> str:
    cleaned = " ".join(title.split())
    if len(cleaned) > MAX_TITLE:
        cleaned = cleaned[: MAX_TITLE - 1] + "…"
    return cleaned


def chat_record(row: sqlite3.Row) -> ChatRecord:
    return ChatRecord(
        id=row["id"],
        title=row["title"],
        title_auto=bool(row["title_auto"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def message_row(chat_id: str, s: StoredMessage) -> tuple[object, ...]:
    m = s.message
    calls = json.dumps([{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls])
    return (
        chat_id,
        s.cursor,
        s.turn_id,
        m.role,
        m.content,
        calls,
        m.tool_call_id,
        m.name,
        s.created_at,
        meta_json(m),
    )


def meta_json(m: Message) -> str:
    meta: dict[str, object] = {}
    if m.mentions:
        meta["mentions"] = [x.model_dump() for x in m.mentions]
    if m.attachments:
        meta["attachments"] = [x.model_dump() for x in m.attachments]
    if m.stopped:
        meta["stopped"] = True
    if m.steer:
        meta["steer"] = True
    if m.tool_outcome is not None:
        meta["tool_outcome"] = m.tool_outcome
    return json.dumps(meta, ensure_ascii=False)


def linked_messages(rows: Sequence[sqlite3.Row], oldest_parent: int) -> builtins.list[StoredMessage]:
    """Rows of a path read newest first → StoredMessages in path order, each with its parent
    (the next older row; `oldest_parent` for the oldest)."""
    out = []
    for i, r in enumerate(rows):
        out.append(stored_message(r, int(rows[i + 1]["cursor"]) if i + 1 < len(rows) else oldest_parent))
    out.reverse()
    return out


def row_chars(row: sqlite3.Row) -> int:
    return len(row["content"]) + len(row["tool_calls"])


def imported_tree(
    messages: Sequence[StoredMessage], leaf: int | None
) -> tuple[builtins.list[tree.BranchRow], builtins.list[tuple[StoredMessage, int]]]:
    """Branches for imported messages from their parents (same rule as append_turn: a parent's
    first child continues its branch, a later child starts a new one). ValueError when a parent
    is not an earlier message of the chat or `leaf` is not one of its messages."""
    branch_of: dict[int, int] = {}
    has_child: set[int] = set()
    made: builtins.list[tree.BranchRow] = []
    rows = []
    prev = 0
    for s in sorted(messages, key=lambda x: x.cursor):
        p = s.parent_cursor
        if s.cursor <= prev or (p != tree.ROOT and p not in branch_of):
            raise ValueError(f"message {s.cursor}: its parent {p} is not an earlier message")
        if p in has_child or (p == tree.ROOT and branch_of):
            parent_branch = tree.NO_BRANCH if p == tree.ROOT else branch_of[p]
            made.append(tree.BranchRow(len(made) + 1, parent_branch, p, s.cursor))
            b = len(made)
        else:
            b = 0 if p == tree.ROOT else branch_of[p]
        has_child.add(p)
        branch_of[s.cursor] = b
        rows.append((s, b))
        prev = s.cursor
    if leaf is not None and leaf not in branch_of:
        raise ValueError(f"the active leaf {leaf} is not a message of the chat")
    return made, rows


def _tool_outcome(raw: object) -> ToolOutcome | None:
    # Meta is our own JSON, but an unknown value (a newer or damaged row) reads as "unknown".
    if raw == "ok" or raw == "error" or raw == "denied":
        return raw
    return None


def stored_message(row: sqlite3.Row, parent: int = 0) -> StoredMessage:
    # Most rows hold no calls and no meta: skipping their JSON parse is most of opening a chat.
    raw_calls, raw_meta = row["tool_calls"], row["meta"]
    calls = () if raw_calls == "[]" else tuple(ToolCall(**c) for c in json.loads(raw_calls))
    meta = json.loads(raw_meta) if raw_meta not in (None, "", "{}") else {}
    message = Message(
        role=row["role"],
        content=row["content"],
        tool_calls=calls,
        tool_call_id=row["tool_call_id"],
        name=row["name"],
        mentions=tuple(Mention(**x) for x in meta.get("mentions", ())) if meta else (),
        attachments=tuple(AttachmentRef(**x) for x in meta.get("attachments", ())) if meta else (),
        stopped=bool(meta.get("stopped", False)) if meta else False,
        steer=bool(meta.get("steer", False)) if meta else False,
        tool_outcome=_tool_outcome(meta.get("tool_outcome")) if meta else None,
    )
    return StoredMessage(
        cursor=row["cursor"],
        turn_id=row["turn_id"],
        message=message,
        created_at=row["created_at"],
        parent_cursor=parent,
    )
