"""The history capability (search, export, import of chats): declared for the app."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.contracts.capability import Capability, CapabilityPlugin

if TYPE_CHECKING:
    from app.host.host import Host


def _build(host: Host) -> Capability:
    from app.attachments.store import AttachmentStore
    from app.attachments.text_index import AttachmentTexts
    from app.history.capability import HistoryCapability

    def downloads() -> Path:
        # CASHCODE_EXPORT_DIR: where the desktop window saves exports (tests point it at a temp dir).
        if host.env.get("CASHCODE_EXPORT_DIR"):
            return Path(host.env["CASHCODE_EXPORT_DIR"])
        import platformdirs

        return Path(platformdirs.user_downloads_dir())

    files = AttachmentStore(host.paths.data_dir / "attachments")
    return HistoryCapability(host.chats, files, host.publish, downloads, AttachmentTexts(host.db, files))


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="history", build=_build, routes="app.history.api_routes", deferred=True
)
