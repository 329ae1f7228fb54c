"""A chat as Markdown (to read and share) or JSON (to import back; `chats.import`).

JSON format `cashcode.chat` version 1:
    {"format": "cashcode.chat", "version": 1,
     "chat": {id, title, title_auto, created_at, updated_at, active_leaf},
     "messages": [{cursor, turn_id, role, content, tool_calls, tool_call_id, name, created_at,
                   mentions, attachments, parent_cursor}],
     "attachments": {sha256: base64 bytes}}
Attachment bytes are embedded so the file is complete on its own. The JSON holds every branch
(each message names its parent, 0 for a first message) and the active leaf; files from before
branches have neither, and import then reads their messages as one line. Markdown prints the
active path only (what the chat shows).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from pathlib import Path

from app.attachments.store import AttachmentMissing, AttachmentStore
from app.store.chats import ChatRecord, StoredMessage
from app.support.atomic import atomic_write_bytes

FORMAT = "cashcode.chat"
VERSION = 1
_FENCE = "```"


def export_filename(record: ChatRecord, ext: str) -> str:
    """A safe file name from the title (letters of any script kept, the rest becomes '-')."""
    stem = re.sub(r"[^\w]+", "-", record.title, flags=re.UNICODE).strip("-_")[:60] or "chat"
    return f"{stem}.{ext}"


def to_json(
    record: ChatRecord, messages: Sequence[StoredMessage], files: AttachmentStore, active_leaf: int = 0
) -> str:
    embedded: dict[str, str] = {}
    rows = []
    for s in messages:
        msg = s.message
        for ref in msg.attachments:
            if ref.sha256 not in embedded:
                try:
                    embedded[ref.sha256] = base64.b64encode(files.read(ref.sha256)).decode("ascii")
                except AttachmentMissing:
                    pass  # exported without bytes; the import then refuses it plainly
        rows.append(
            {
                "cursor": s.cursor,
                "turn_id": s.turn_id,
                "role": msg.role,
                "content": msg.content,
                "tool_calls": [c.model_dump() for c in msg.tool_calls],
                "tool_call_id": msg.tool_call_id,
                "name": msg.name,
                "created_at": s.created_at,
                "mentions": [x.model_dump() for x in msg.mentions],
                "attachments": [x.model_dump() for x in msg.attachments],
                "parent_cursor": s.parent_cursor,
                "stopped": msg.stopped,
                "steer": msg.steer,
                "tool_outcome": msg.tool_outcome,
            }
        )
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "chat": {
            "id": record.id,
            "title": record.title,
            "title_auto": record.title_auto,
            "created_at": record.created_at,
            "updated_at": record.updated_at,
            "active_leaf": active_leaf,
        },
        "messages": rows,
        "attachments": embedded,
    }
    return json.dumps(doc, ensure_ascii=False, indent=1)


def to_markdown(record: ChatRecord, messages: Sequence[StoredMessage]) -> str:
    title = record.title or "Chat"
    lines = [f"# {title}", "", f"_Exported from CashCode · created {record.created_at}_", ""]
    for s in messages:
        msg = s.message
        if msg.role == "system":
            continue
        if msg.role == "tool":
            lines += [f"**Tool result** (`{msg.name or 'tool'}`):", "", *_fenced(msg.content), ""]
            continue
        who = "You" if msg.role == "user" else "CashCode"
        lines += [f"## {who} · {s.created_at}", ""]
        if msg.content:
            lines += [msg.content, ""]
        for ref in msg.attachments:
            lines.append(f"- 📎 {ref.name} ({ref.mime}, {ref.size} bytes, sha256 {ref.sha256[:12]}…)")
        if msg.attachments:
            lines.append("")
        for call in msg.tool_calls:
            lines += [f"**Tool call** `{call.name}`:", "", *_fenced(call.arguments, "json"), ""]
    return "\n".join(lines).rstrip() + "\n"


def _fenced(text: str, lang: str = "") -> list[str]:
    # A fence longer than any backtick run inside, so tool output cannot close it early.
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(len(_FENCE), longest + 1)
    return [fence + lang, text, fence]


def save_unique(folder: Path, filename: str, content: str) -> Path:
    """Write `content` as `folder/filename` atomically, never replacing an existing file
    ("name (2).md", "name (3).md", … instead)."""
    return save_unique_bytes(folder, filename, content.encode("utf-8"))


def save_unique_bytes(folder: Path, filename: str, content: bytes) -> Path:
    """`save_unique` for bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    stem, dot, ext = filename.rpartition(".")
    n = 1
    while True:
        candidate = folder / (filename if n == 1 else f"{stem} ({n}){dot}{ext}")
        try:
            # replace=False fails instead of replacing a file that exists or appeared meanwhile
            atomic_write_bytes(candidate, content, replace=False)
            return candidate
        except FileExistsError:
            n += 1
