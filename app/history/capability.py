"""The history capability: `chats.search` (grouped per chat), `chats.export`, `chats.import`."""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Callable, Mapping
from pathlib import Path

from app.attachments.store import AttachmentStore
from app.attachments.text_index import AttachmentTexts
from app.contracts import replies as m
from app.contracts.capability import Capability, Handler
from app.contracts.errors import ApiFailure, say
from app.contracts.events import AppEvent, SessionUpdated
from app.history import api_models as h
from app.history.export import export_filename, save_unique, save_unique_bytes, to_json, to_markdown
from app.history.importer import ChatImportError, import_chat
from app.history.search_groups import (
    HITS_READ_PER_CHAT,
    MAX_HITS_READ,
    found_in_file,
    found_in_message,
    group_hits,
)
from app.store.chats import ChatRepository


class HistoryCapability(Capability):
    name = "history"

    def __init__(
        self,
        chats: ChatRepository,
        files: AttachmentStore,
        emit: Callable[[AppEvent], None],
        downloads: Callable[[], Path],
        texts: AttachmentTexts | None = None,
        notes: Callable[[str], Mapping[str, str]] = lambda chat_id: {},
    ) -> None:
        self._notes = notes  # lines for tool results an export cannot show live (MCP Apps)
        self._chats = chats
        self._texts = texts
        self._files = files
        self._emit = emit
        self._downloads = downloads

    def routes(self) -> Mapping[str, Handler]:
        return {
            "chats.search": self.search,
            "chats.export": self.export,
            "chats.import": self.import_,
            "files.save_download": self.save_download,
        }

    async def search(self, req: h.ChatSearch) -> h.SearchResults:
        return await asyncio.to_thread(self._search, req)

    def _search(self, req: h.ChatSearch) -> h.SearchResults:
        if self._texts is not None:
            self._texts.index_missing()  # files that came without an upload (imports, older chats)
        window = min(req.limit * HITS_READ_PER_CHAT, MAX_HITS_READ)
        in_messages = self._chats.search(req.query, limit=window)
        in_files = self._texts.search(req.query, limit=window) if self._texts is not None else []
        found = [*map(found_in_message, in_messages), *map(found_in_file, in_files)]
        truncated = len(in_messages) >= window or len(in_files) >= window
        return group_hits(found, req.query.split(), req.limit, self._chats.off_path, truncated=truncated)

    async def export(self, req: h.ChatExport) -> h.ExportedChat:
        record = self._chats.get(req.chat_id)
        if req.format == "json":  # every branch, and which one is active
            messages = self._chats.stored_messages(req.chat_id)
            leaf = self._chats.leaf(req.chat_id)
            out = h.ExportedChat(
                filename=export_filename(record, "json"),
                mime="application/json",
                content=to_json(record, messages, self._files, leaf),
            )
        elif req.format == "html":
            if not req.html or not req.html.lstrip().lower().startswith("<!doctype html>"):
                raise ApiFailure("invalid", say("export.needs_html"))
            out = h.ExportedChat(filename=export_filename(record, "html"), mime="text/html", content=req.html)
        else:  # what the chat shows: the active path
            out = h.ExportedChat(
                filename=export_filename(record, "md"),
                mime="text/markdown",
                content=to_markdown(record, self._chats.path_messages(req.chat_id), self._notes(req.chat_id)),
            )
        if not req.save_to_downloads:
            return out
        try:
            saved = save_unique(self._downloads(), out.filename, out.content)
        except OSError as exc:
            raise ApiFailure("invalid", say("export.cannot_save", reason=exc.strerror or exc)) from exc
        return out.model_copy(update={"saved_path": str(saved)})

    async def save_download(self, req: h.FileSave) -> h.SavedFile:
        """A file the UI made (a diagram's SVG/PNG, an artifact) saved into Downloads: the
        desktop window cannot download (issue 27). Never replaces a file (save_unique)."""
        if req.base64:
            try:
                data = base64.b64decode(req.content, validate=True)
            except binascii.Error as exc:
                raise ApiFailure("invalid", say("file.bad_base64")) from exc
        else:
            data = req.content.encode("utf-8")
        try:
            saved = save_unique_bytes(self._downloads(), req.filename, data)
        except OSError as exc:
            raise ApiFailure("invalid", say("file.cannot_save", reason=exc.strerror or exc)) from exc
        return h.SavedFile(saved_path=str(saved))

    async def import_(self, req: h.ChatImport) -> m.ChatSummary:
        try:
            done = import_chat(req.content, self._chats, self._files)
        except ChatImportError as exc:
            raise ApiFailure("invalid", say("chat.cannot_import", reason=exc)) from exc
        record = done.record
        self._emit(SessionUpdated(chat_id=record.id, title=record.title, updated_at=record.updated_at))
        activity = self._chats.activity([record.id]).get(record.id)
        return m.ChatSummary(
            id=record.id,
            title=record.title,
            created_at=record.created_at,
            updated_at=record.updated_at,
            message_count=activity.message_count if activity else 0,
            last_activity=(activity.last_message_at if activity else None) or record.created_at,
        )
