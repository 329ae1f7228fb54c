"""Route types of the branch routes (merged in app/api/route_types.py; handlers in app.py)."""

from __future__ import annotations

from pydantic import BaseModel

from app.api import branch_models as b
from app.api import models as m

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "chat.edit": (b.ChatEdit, m.TurnRef),
    "chat.regenerate": (b.ChatRegenerate, m.TurnRef),
    "chats.switch_branch": (b.BranchSwitch, m.ChatDetail),
}
