"""Whether the built UI exists (window tests that need the real frontend skip without it)."""

from __future__ import annotations

from app.desktop.assets import web_index


def ui_is_built() -> bool:
    return web_index().is_file()
