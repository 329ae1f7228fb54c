"""Route types of the history capability (merged in app/api/route_types.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.contracts import replies as m
from app.history import api_models as h

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "chats.search": (h.ChatSearch, h.SearchResults),
    "chats.export": (h.ChatExport, h.ExportedChat),
    "chats.import": (h.ChatImport, m.ChatSummary),
    "files.save_download": (h.FileSave, h.SavedFile),
}
