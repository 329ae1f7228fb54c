"""Attachments of a user message in each wire format (images as image parts, text files and
PDF text as named text parts). A reference whose content is not in the request is skipped."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.contracts.messages import Message
from app.contracts.provider import AttachmentInput
from app.llm.json_body import Base64Blob


def resolved(message: Message, inputs: Mapping[str, AttachmentInput]) -> list[AttachmentInput]:
    return [inputs[a.sha256] for a in message.attachments if a.sha256 in inputs]


def text_block(item: AttachmentInput) -> str:
    """A text attachment as the model sees it: its name, then its content."""
    name = item.name.replace('"', "'")
    return f'<attachment name="{name}" type="{item.mime}">\n{item.text}\n</attachment>'


_MIME = re.compile(r"[a-z0-9.+-]+/[a-z0-9.+-]+")


def data_url(item: AttachmentInput) -> Base64Blob:
    # The type comes from the message's reference: anything odd becomes a neutral type.
    mime = item.mime if _MIME.fullmatch(item.mime) else "application/octet-stream"
    return Base64Blob(f"data:{mime};base64,", item.data_b64)


def chat_content(message: Message, inputs: Mapping[str, AttachmentInput]) -> list[dict[str, Any]]:
    """Chat Completions content parts (also Ollama's /v1)."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    for item in resolved(message, inputs):
        if item.kind == "image":
            parts.append({"type": "image_url", "image_url": {"url": data_url(item)}})
        else:
            parts.append({"type": "text", "text": text_block(item)})
    return parts


def responses_content(message: Message, inputs: Mapping[str, AttachmentInput]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "input_text", "text": message.content}]
    for item in resolved(message, inputs):
        if item.kind == "image":
            parts.append({"type": "input_image", "image_url": data_url(item)})
        else:
            parts.append({"type": "input_text", "text": text_block(item)})
    return parts


def ollama_fields(message: Message, inputs: Mapping[str, AttachmentInput]) -> dict[str, Any]:
    """Ollama /api/chat: text appended to `content`, images as base64 in `images`."""
    items = resolved(message, inputs)
    texts = [text_block(i) for i in items if i.kind == "text"]
    out: dict[str, Any] = {"content": "\n\n".join([message.content, *texts]) if texts else message.content}
    images = [Base64Blob("", i.data_b64) for i in items if i.kind == "image"]
    if images:
        out["images"] = images
    return out
