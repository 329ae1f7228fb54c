"""`attachments.upload` (bytes → content-addressed store → AttachmentRef) and
`attachments.data` (an image's bytes for thumbnails after a reload)."""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Mapping
from pathlib import PurePath

from app.attachments import api_models as a
from app.attachments.kinds import AttachmentRejected, classify
from app.attachments.store import AttachmentMissing, AttachmentStore
from app.attachments.text_index import AttachmentTexts
from app.contracts.capability import Capability, Handler
from app.contracts.errors import ApiFailure, said, say
from app.contracts.messages import safe_file_name


class AttachmentsCapability(Capability):
    name = "attachments"

    def __init__(self, store: AttachmentStore, texts: AttachmentTexts | None = None) -> None:
        self._store = store
        self._texts = texts

    def routes(self) -> Mapping[str, Handler]:
        return {"attachments.upload": self.upload, "attachments.data": self.data}

    async def upload(self, req: a.AttachmentUpload) -> a.UploadedAttachment:
        name = safe_file_name(PurePath(req.name.replace("\\", "/")).name).strip() or "file"
        try:
            data = base64.b64decode(req.data_base64, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ApiFailure("invalid", say("attach.bad_base64", name=name)) from exc
        try:
            kind = classify(name, req.mime, data)
        except AttachmentRejected as exc:
            raise ApiFailure("invalid", said(exc)) from exc
        digest = await asyncio.to_thread(self._stored, data, kind.kind)
        return a.UploadedAttachment(sha256=digest, name=name, mime=kind.mime, size=len(data), kind=kind.kind)

    def _stored(self, data: bytes, kind: str) -> str:
        digest = self._store.put(data)
        if kind == "image":  # what a send reads: the base64 text, encoded once now (app/llm/json_body.py)
            self._store.save_b64(digest)
        elif self._texts is not None:  # the chat search finds text in files too
            self._texts.add(digest, kind)
        return digest

    async def data(self, req: a.AttachmentDataQuery) -> a.AttachmentData:
        try:
            raw = await asyncio.to_thread(self._store.read, req.sha256)
        except AttachmentMissing as exc:
            raise ApiFailure("not_found", say("attach.gone")) from exc
        try:
            kind = classify("image", "", raw)
        except AttachmentRejected as exc:
            raise ApiFailure("invalid", say("attach.preview_images_only")) from exc
        if kind.kind != "image":
            raise ApiFailure("invalid", say("attach.preview_images_only"))
        return a.AttachmentData(
            sha256=req.sha256, mime=kind.mime, data_base64=base64.b64encode(raw).decode("ascii")
        )
