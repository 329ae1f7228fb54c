"""Route types of the desktop shell's adapter-only routes; merged in app/api/route_types.py.

Served only by `cashcode desktop` (app/desktop/presence_routes.py registers the handlers);
`cashcode serve` answers `unsupported`, and the UI hides what needs them."""

from __future__ import annotations

from pydantic import BaseModel

from app.api import models as m
from app.desktop import api_models as d

ROUTE_TYPES: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "desktop.presence": (m.Empty, d.PresenceView),
    "desktop.quick_hide": (m.Empty, m.Ok),
    "desktop.quick_chat": (d.QuickChat, m.Ok),
    "desktop.open_in_main": (d.OpenChat, m.Ok),
    "desktop.set_hotkey": (d.HotkeyInput, d.PresenceView),
    "desktop.open_path": (d.OpenPath, m.Ok),
}
