"""The attachments capability (uploads, file data): declared for the app."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.attachments.capability import AttachmentsCapability
    from app.attachments.store import AttachmentStore
    from app.attachments.text_index import AttachmentTexts

    files = AttachmentStore(host.paths.data_dir / "attachments")
    return AttachmentsCapability(files, AttachmentTexts(host.db, files))


def _texts(conn: sqlite3.Connection) -> None:
    from app.attachments.text_index import migrate_v1  # text files and PDFs in the chat search

    migrate_v1(conn)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="attachments",
    build=_build,
    routes="app.attachments.api_routes",
    migrations=(_texts,),
    deferred=True,
)
