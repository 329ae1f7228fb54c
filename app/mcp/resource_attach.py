"""Attach an MCP resource to a message (SPEC S6): read it once and store each content as an
ordinary attachment, so sending, storage with the message, reload and export are the ones every
file attachment already has (app/attachments/).

- text content → a text attachment whose first line names the resource (URI and server);
- an image blob → an image attachment (sent as an image part; a model without vision gets the
  same clear refusal as a dropped image, app/attachments/send_checks.py);
- any other blob → a short text note saying what it is, since a model cannot read it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass

from app.attachments.api_models import UploadedAttachment
from app.attachments.kinds import MAX_FILES, AttachmentRejected, classify
from app.attachments.store import AttachmentStore

NAME_CHARS = 120


@dataclass(frozen=True)
class ResourcePart:
    """One content of a `resources/read` result, as the SDK gives it."""

    uri: str
    mime_type: str | None
    text: str | None
    blob: str | None  # base64


class ResourceAttachError(ValueError):
    """The resource cannot be attached (the message says why)."""


def _label(server: str, title: str, uri: str) -> str:
    shown = (title or uri).replace("/", "∕").strip() or "resource"
    return f"{server} · {shown}"[:NAME_CHARS]


def _text_bytes(server: str, part: ResourcePart, body: str) -> bytes:
    header = f"[MCP resource {part.uri} from server {server}]\n"
    return (header + body).encode("utf-8")


def _is_image(raw: bytes) -> bool:
    """By the bytes' magic number (never by the server's word), as for uploads."""
    try:
        return classify("blob", "", raw[:16]).kind == "image"
    except AttachmentRejected:
        return False


def _one(server: str, title: str, part: ResourcePart) -> tuple[str, str, bytes]:
    """(name, mime, bytes) of one content part."""
    label = _label(server, title, part.uri)
    if part.text is not None:
        mime = part.mime_type or "text/plain"
        text_mime = mime if mime.startswith("text/") or mime == "application/json" else "text/plain"
        return label, text_mime, _text_bytes(server, part, part.text)
    try:
        raw = base64.b64decode(part.blob or "", validate=True)
    except (binascii.Error, ValueError):
        raise ResourceAttachError(f"{part.uri}: the server sent a blob that is not valid base64") from None
    if _is_image(raw):
        return label, part.mime_type or "", raw
    note = (
        f"(binary content, {part.mime_type or 'unknown type'}, {len(raw)} bytes — "
        "not text or an image, so the model cannot read it)"
    )
    return label, "text/plain", _text_bytes(server, part, note)


async def store_parts(
    store: AttachmentStore, server: str, title: str, parts: Sequence[ResourcePart]
) -> list[UploadedAttachment]:
    """Store every content part; all or nothing is returned (stored bytes without a reference
    are harmless: content-addressed and never sent)."""
    if not parts:
        raise ResourceAttachError("the server returned no content for this resource")
    if len(parts) > MAX_FILES:
        raise ResourceAttachError(
            f"the resource has {len(parts)} parts; at most {MAX_FILES} can be attached to one message"
        )
    out: list[UploadedAttachment] = []
    for part in parts:
        name, mime, data = _one(server, title, part)
        try:
            kind = classify(name, mime, data)
        except AttachmentRejected as exc:
            raise ResourceAttachError(f"{part.uri}: {exc}") from None
        digest = await asyncio.to_thread(store.put, data)
        out.append(
            UploadedAttachment(sha256=digest, name=name, mime=kind.mime, size=len(data), kind=kind.kind)
        )
    return out
