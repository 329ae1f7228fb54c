"""Request/response models of the attachment routes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# 20 MB as base64 (4/3) plus slack.
MAX_BASE64_CHARS = 28 * 1024 * 1024


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class AttachmentUpload(_Model):
    name: str = Field(min_length=1, max_length=255)
    mime: str = Field(default="", max_length=200)
    data_base64: str = Field(max_length=MAX_BASE64_CHARS)


class UploadedAttachment(_Model):
    """The stored file's reference, to pass in `chat.send` `attachments` (same fields as
    `AttachmentRef`)."""

    sha256: str
    name: str
    mime: str
    size: int
    kind: Literal["image", "text", "pdf", "file"]


class AttachmentDataQuery(_Model):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class AttachmentData(_Model):
    sha256: str
    mime: str
    data_base64: str  # images only: what a thumbnail shows
