"""Route types of the Inbox routes (merged in app/api/route_types.py; handlers in app.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.api import inbox_models as i
from app.api import models as m

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "inbox.list": (i.InboxQuery, i.InboxList),
    "inbox.answer": (i.InboxAnswer, m.Ok),
}
