"""Checks before a message with attachments is sent: the files exist and match their
references, there are not too many, and images go only to a model that can see them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from app.attachments.kinds import MAX_FILES, AttachmentRejected, classify
from app.attachments.store import AttachmentStore
from app.contracts.errors import ApiFailure, say
from app.contracts.messages import AttachmentRef

VisionProbe = Callable[[], Awaitable[bool | None]]  # what discovery says (None: unknown)


def check_files(store: AttachmentStore, refs: Sequence[AttachmentRef]) -> None:
    if len(refs) > MAX_FILES:
        raise ApiFailure(
            "invalid", say("attach.too_many", max=MAX_FILES, count=len(refs))
        )
    for ref in refs:
        if not store.exists(ref.sha256):
            raise ApiFailure("invalid", say("attach.not_uploaded", name=ref.name))
        path = store.path(ref.sha256)
        if path.stat().st_size != ref.size:
            raise ApiFailure("invalid", say("attach.mismatch", name=ref.name))
        with path.open("rb") as fh:
            head = fh.read(16)
        try:
            is_image = classify(ref.name, ref.mime, head).kind == "image"
        except AttachmentRejected:
            is_image = False
        if is_image != (ref.kind == "image"):
            raise ApiFailure("invalid", say("attach.mismatch", name=ref.name))


async def check_vision(
    refs: Sequence[AttachmentRef], model: str, marked: Sequence[str], discovered: VisionProbe
) -> None:
    """Images need a vision model: marked by the user in Settings, or reported by discovery."""
    if not any(r.kind == "image" for r in refs) or model in marked:
        return
    if await discovered() is True:
        return
    raise ApiFailure(
        "invalid",
        say("attach.no_vision", model=model),
    )
