"""Import a chat exported as JSON (`export.to_json`). Everything is checked before anything is
written; the chat and its messages are then written in one transaction, so a bad file changes
nothing."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from app.attachments.kinds import MAX_FILE_BYTES, MAX_IMAGE_BYTES
from app.attachments.store import AttachmentStore, valid_digest
from app.contracts.messages import AttachmentRef, Mention, Message, Role, ToolCall, ToolOutcome
from app.history.export import FORMAT, VERSION
from app.store.chats import ChatRecord, ChatRepository, StoredMessage
from app.store.ids import is_valid_id, new_id
from app.store.timeutil import normalize_iso

MAX_MESSAGES = 100_000
# The upload limit: an import must not bring in a file the composer would refuse.
MAX_ATTACHMENT_BYTES = max(MAX_FILE_BYTES, MAX_IMAGE_BYTES)
# A chat holds what a user and a model said: a system message would reach the model on resume
# while `sessions show` and the export hide it (issue 23 item 5).
IMPORTABLE_ROLES = ("user", "assistant", "tool")


class ChatImportError(ValueError):
    """The file is not an importable CashCode chat (the message says why)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _ChatIn(_Strict):
    id: str = ""
    title: str = ""
    title_auto: bool = False
    created_at: str
    updated_at: str
    active_leaf: int | None = Field(default=None, ge=0)  # None/0: the newest message

    # Stored in the one fixed-width UTC form, so the chat list's text order is time order.
    @field_validator("created_at", "updated_at")
    @classmethod
    def _fixed_width(cls, value: str) -> str:
        return normalize_iso(value)


class _MessageIn(_Strict):
    cursor: int = Field(ge=1)
    turn_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    created_at: str
    mentions: list[Mention] = Field(default_factory=list)
    attachments: list[AttachmentRef] = Field(default_factory=list)
    parent_cursor: int | None = Field(default=None, ge=0)  # None: the previous message (one line)
    stopped: bool = False  # an answer cut short by Stop
    steer: bool = False  # a user message given inside its turn (Steer)
    tool_outcome: ToolOutcome | None = None  # a tool result's ok / error / denied

    @field_validator("created_at")
    @classmethod
    def _fixed_width(cls, value: str) -> str:
        return normalize_iso(value)


class _DocIn(_Strict):
    format: str
    version: int
    chat: _ChatIn
    messages: list[_MessageIn] = Field(max_length=MAX_MESSAGES)
    attachments: dict[str, str] = Field(default_factory=dict)


@dataclass(frozen=True)
class Imported:
    record: ChatRecord
    message_count: int


def parse(content: str) -> _DocIn:
    try:
        raw: Any = json.loads(content)
    except json.JSONDecodeError as exc:
        raise ChatImportError(f"the file is not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ChatImportError("this is not a CashCode chat export (format 'cashcode.chat' expected)")
    if raw.get("version") != VERSION:
        raise ChatImportError(
            f"unsupported export version {raw.get('version')!r} (this CashCode reads {VERSION})"
        )
    try:
        doc = _DocIn.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ChatImportError(f"the export is damaged at {where}: {first['msg']}") from exc
    cursors = [m.cursor for m in doc.messages]
    if cursors != sorted(set(cursors)):
        raise ChatImportError("the export is damaged: message cursors must be unique and increasing")
    _check_roles_and_order(doc)
    return doc


def _check_roles_and_order(doc: _DocIn) -> None:
    """Only user/assistant/tool messages; a chain starts with the user; every tool result
    answers a call of the assistant message it follows (through earlier results of that call)."""
    by_cursor = {m.cursor: m for m in doc.messages}
    previous = [0, *(m.cursor for m in doc.messages)]
    parent_of = {
        m.cursor: previous[i] if m.parent_cursor is None else m.parent_cursor
        for i, m in enumerate(doc.messages)
    }
    for cursor, parent_cursor in parent_of.items():
        if parent_cursor >= cursor:  # parents come first; also keeps the walk below finite
            raise ChatImportError(f"the export is damaged: message {cursor} comes before its parent")
    for m in doc.messages:
        if m.role not in IMPORTABLE_ROLES:
            raise ChatImportError(
                f"message {m.cursor} has the role {m.role!r}: an import accepts only user, assistant "
                "and tool messages"
            )
        parent = by_cursor.get(parent_of[m.cursor])
        if parent is None and m.role != "user":
            raise ChatImportError(f"message {m.cursor} starts a conversation but is not the user's")
        if m.role != "tool":
            continue
        while parent is not None and parent.role == "tool":
            parent = by_cursor.get(parent_of[parent.cursor])
        calls = (
            {c.id for c in parent.tool_calls} if parent is not None and parent.role == "assistant" else set()
        )
        if not m.tool_call_id or m.tool_call_id not in calls:
            raise ChatImportError(
                f"message {m.cursor} is a tool result without the assistant call it answers"
            )


def clean_text(value: str) -> str:
    """Control and format characters (ESC, bidi overrides, …) removed, whitespace folded."""
    kept = "".join(ch if unicodedata.category(ch) not in ("Cc", "Cf") else " " for ch in value)
    return " ".join(kept.split())


def _clean_attachment(ref: AttachmentRef) -> AttachmentRef:
    if ref.size > MAX_ATTACHMENT_BYTES:
        raise ChatImportError(
            f"attachment {clean_text(ref.name)[:80]!r} is larger than the upload limit "
            f"({MAX_ATTACHMENT_BYTES // (1024 * 1024)} MB)"
        )
    return ref.model_copy(update={"name": clean_text(ref.name)[:255] or "file"})


def _attachment_bytes(doc: _DocIn) -> dict[str, bytes]:
    needed = {a.sha256: a for m in doc.messages for a in m.attachments}
    out: dict[str, bytes] = {}
    for digest, ref in needed.items():
        if not valid_digest(digest):
            raise ChatImportError(f"attachment {ref.name!r} has an invalid digest")
        _clean_attachment(ref)  # the size limit, before anything is decoded or stored
        encoded = doc.attachments.get(digest)
        if encoded is None:
            raise ChatImportError(f"attachment {ref.name!r} is missing from the export")
        if len(encoded) > (MAX_ATTACHMENT_BYTES * 4) // 3 + 4:  # checked before decoding
            raise ChatImportError(
                f"attachment {ref.name!r} is larger than the upload limit "
                f"({MAX_ATTACHMENT_BYTES // (1024 * 1024)} MB)"
            )
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ChatImportError(f"attachment {ref.name!r} is not valid base64") from exc
        if len(data) > MAX_ATTACHMENT_BYTES:  # the declared size may lie
            raise ChatImportError(
                f"attachment {ref.name!r} is larger than the upload limit "
                f"({MAX_ATTACHMENT_BYTES // (1024 * 1024)} MB)"
            )
        if hashlib.sha256(data).hexdigest() != digest:
            raise ChatImportError(f"attachment {ref.name!r} does not match its digest (the file was altered)")
        out[digest] = data
    return out


def import_chat(content: str, chats: ChatRepository, files: AttachmentStore) -> Imported:
    doc = parse(content)
    blobs = _attachment_bytes(doc)
    for data in blobs.values():
        files.put(data)  # content-addressed: harmless if the import fails afterwards
    # Keep the original id when it is free (a restore); otherwise the import is a copy.
    chat_id = doc.chat.id if is_valid_id(doc.chat.id) and not chats.exists(doc.chat.id) else new_id()
    record = ChatRecord(
        id=chat_id,
        title=clean_text(doc.chat.title)[:200],
        title_auto=doc.chat.title_auto,
        created_at=doc.chat.created_at,
        updated_at=doc.chat.updated_at,
    )
    previous = [0, *(m.cursor for m in doc.messages)]
    stored = [
        StoredMessage(
            cursor=m.cursor,
            turn_id=m.turn_id,
            created_at=m.created_at,
            parent_cursor=previous[i] if m.parent_cursor is None else m.parent_cursor,
            message=Message(
                role=m.role,
                content=m.content,
                tool_calls=tuple(m.tool_calls),
                tool_call_id=m.tool_call_id,
                name=m.name,
                mentions=tuple(m.mentions),
                attachments=tuple(_clean_attachment(a) for a in m.attachments),
                stopped=m.stopped and m.role == "assistant",
                steer=m.steer and m.role == "user",
                tool_outcome=m.tool_outcome if m.role == "tool" else None,
            ),
        )
        for i, m in enumerate(doc.messages)
    ]
    try:
        saved = chats.insert_imported(record, stored, leaf=doc.chat.active_leaf or None)
    except ValueError as exc:  # parents or the active leaf do not form a tree
        raise ChatImportError(f"the export is damaged: {exc}") from exc
    return Imported(record=saved, message_count=len(stored))
