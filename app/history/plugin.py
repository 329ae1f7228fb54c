"""The history capability (search, export, import of chats): declared for the app."""

from __future__ import annotations

from collections.abc import Mapping
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

    def notes(chat_id: str) -> Mapping[str, str]:
        # An MCP App's card in an export: a placeholder line above its tool result (issue 37).
        try:
            return host.capability("mcp").tool_result_notes(chat_id)
        except KeyError:  # a build without the MCP capability
            return {}

    files = AttachmentStore(host.paths.data_dir / "attachments")
    texts = AttachmentTexts(host.db, files)
    return HistoryCapability(host.chats, files, host.publish, downloads, texts, notes)


PLUGIN: CapabilityPlugin[Host] = CapabilityPlugin(
    name="history", build=_build, routes="app.history.api_routes", deferred=True
)
