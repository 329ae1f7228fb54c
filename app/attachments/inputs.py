"""Turn `AttachmentRef`s into what a model request carries (`AttachmentInput`)."""

from __future__ import annotations

from collections.abc import Iterable

from app.attachments.kinds import MAX_TEXT_CHARS
from app.attachments.pdf_text import PdfUnreadable, pdf_text
from app.attachments.store import AttachmentMissing, AttachmentStore
from app.contracts.messages import AttachmentRef, Message
from app.contracts.provider import AttachmentInput

TRUNCATED = "\n[… truncated: the file is longer than CashCode gives a model]"


class AttachmentResolver:
    """Reads attachment bytes from the store; PDF text is extracted once and cached beside it."""

    def __init__(self, store: AttachmentStore) -> None:
        self._store = store

    def text_of(self, ref: AttachmentRef) -> str:
        if ref.kind == "pdf":
            cached = self._store.text_sidecar(ref.sha256)
            if cached is not None:
                return cached
            try:
                text = pdf_text(self._store.read(ref.sha256), MAX_TEXT_CHARS)
            except PdfUnreadable as exc:
                text = f"[{ref.name}: {exc}]"
            self._store.save_text_sidecar(ref.sha256, text)
            return text or f"[{ref.name}: this PDF has no text layer]"
        raw = self._store.read(ref.sha256).decode("utf-8", errors="replace")
        return raw if len(raw) <= MAX_TEXT_CHARS else raw[:MAX_TEXT_CHARS] + TRUNCATED

    def resolve(self, ref: AttachmentRef) -> AttachmentInput:
        if ref.kind == "image":
            data = self._store.read_b64(ref.sha256)
            return AttachmentInput(kind="image", name=ref.name, mime=ref.mime, data_b64=data)
        return AttachmentInput(kind="text", name=ref.name, mime=ref.mime, text=self.text_of(ref))

    def for_messages(self, messages: Iterable[Message]) -> dict[str, AttachmentInput]:
        out: dict[str, AttachmentInput] = {}
        for message in messages:
            for ref in message.attachments:
                if ref.sha256 in out:
                    continue
                try:
                    out[ref.sha256] = self.resolve(ref)
                except AttachmentMissing:
                    # A file deleted from the data folder: the model is told, the turn goes on.
                    out[ref.sha256] = AttachmentInput(
                        kind="text",
                        name=ref.name,
                        mime="text/plain",
                        text="[this attachment is no longer available]",
                    )
        return out
