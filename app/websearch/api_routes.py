"""Route types of the web search capability (merged in app/api/route_types.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.contracts import replies as m
from app.websearch import api_models as w

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "websearch.get": (m.Empty, w.WebSearchView),
    "websearch.save": (w.WebSearchSave, w.WebSearchView),
}
