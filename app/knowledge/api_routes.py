"""Route types of the knowledge capability (merged in app/api/route_types.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.contracts import replies as m
from app.knowledge import api_models as k

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "knowledge.list": (m.Empty, k.KbList),
    "knowledge.create": (k.KbName, k.KbView),
    "knowledge.rename": (k.KbRename, k.KbView),
    "knowledge.delete": (k.KbName, m.Empty),
    "knowledge.add": (k.KbAdd, k.KbAddResult),
    "knowledge.add_root": (k.KbRoot, k.KbAddResult),
    "knowledge.remove_root": (k.KbRoot, k.KbAddResult),
    "knowledge.reindex": (k.KbReindex, k.KbRuns),
    "knowledge.search": (k.KbSearch, k.KbHits),
    "knowledge.skipped": (k.KbName, k.KbSkippedList),
    "knowledge.resolve": (k.KbResolve, k.KbResolved),
    "knowledge.locate": (k.KbLocate, k.KbLocated),
    "knowledge.read": (k.KbRead, k.KbExcerpt),
    "knowledge.settings.get": (m.Empty, k.KbSettings),
    "knowledge.settings.save": (k.KbSettings, k.KbSettings),
}
