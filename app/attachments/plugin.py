"""The attachments capability (uploads, file data): declared for the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.attachments.capability import AttachmentsCapability
    from app.attachments.store import AttachmentStore

    return AttachmentsCapability(AttachmentStore(host.paths.data_dir / "attachments"))


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="attachments", build=_build, routes="app.attachments.api_routes", deferred=True
)
