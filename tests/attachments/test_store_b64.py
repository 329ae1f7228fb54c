"""The base64 sidecar a send reads (app/attachments/store.py `read_b64`)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from app.attachments.inputs import AttachmentResolver
from app.attachments.store import AttachmentMissing, AttachmentStore
from app.contracts.messages import AttachmentRef, Message


def test_the_sidecar_is_made_when_missing_and_remade_when_damaged(tmp_path: Path) -> None:
    store = AttachmentStore(tmp_path)
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    digest = store.put(data)  # e.g. a file stored before sidecars existed: none yet
    sidecar = store.path(digest).with_suffix(".b64")
    assert not sidecar.exists()
    assert store.read_b64(digest) == base64.b64encode(data)
    assert sidecar.read_bytes() == base64.b64encode(data)
    sidecar.write_bytes(sidecar.read_bytes()[:100])  # cut short (a crash, a disk problem)
    assert store.read_b64(digest) == base64.b64encode(data)
    assert sidecar.read_bytes() == base64.b64encode(data)
    assert not [p for p in sidecar.parent.iterdir() if p.name.startswith(".part-")]


def test_a_missing_file_is_reported_and_the_model_is_told(tmp_path: Path) -> None:
    store = AttachmentStore(tmp_path)
    with pytest.raises(AttachmentMissing):
        store.read_b64("e" * 64)
    ref = AttachmentRef(sha256="e" * 64, name="gone.png", mime="image/png", size=3, kind="image")
    inputs = AttachmentResolver(store).for_messages([Message(role="user", content="x", attachments=(ref,))])
    assert inputs[ref.sha256].text == "[this attachment is no longer available]"
