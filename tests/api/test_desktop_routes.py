"""The desktop shell's adapter-only routes and settings, seen from the API (no desktop)."""

from __future__ import annotations

from typing import Any

from app.desktop.api_routes import ROUTE_TYPES as DESKTOP_ROUTES
from tests.api.conftest import AppMaker, err, ok


async def test_desktop_routes_are_unsupported_without_the_desktop(make_app: AppMaker) -> None:
    app, _ = await make_app()
    payloads: dict[str, dict[str, Any]] = {
        "desktop.quick_chat": {"chat_id": None},
        "desktop.open_in_main": {"chat_id": "c"},
        "desktop.set_hotkey": {"binding": "Ctrl+K"},
        "desktop.open_path": {"path": "/x.md"},
    }
    for route in DESKTOP_ROUTES:
        assert (await err(app, route, payloads.get(route, {})))["code"] == "unsupported", route


async def test_close_to_tray_and_the_hotkey_are_settings(make_app: AppMaker) -> None:
    app, _ = await make_app()
    view = await ok(app, "settings.get")
    assert (view["close_to_tray"], view["quick_ask_hotkey"]) == (True, "")
    view = await ok(app, "settings.update", {"close_to_tray": False, "quick_ask_hotkey": "Alt+Space"})
    assert (view["close_to_tray"], view["quick_ask_hotkey"]) == (False, "Alt+Space")
    assert (await err(app, "settings.update", {"quick_ask_hotkey": "x" * 65}))["code"] == "invalid"
