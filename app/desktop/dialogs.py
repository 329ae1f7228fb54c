"""Native dialogs behind adapter-only routes (`desktop.pick_folder`, `desktop.pick_file`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import webview

if TYPE_CHECKING:
    from app.contracts.replies import FilePickQuery, FolderPick

PICK_FOLDER_ROUTE = "desktop.pick_folder"
PICK_FILE_ROUTE = "desktop.pick_file"
FILE_TYPES = {"mcpb": ("MCP Bundle (*.mcpb)",), "any": ()}


class DialogWindow(Protocol):
    def create_file_dialog(
        self,
        dialog_type: int = ...,
        directory: str = ...,
        allow_multiple: bool = ...,
        save_filename: str = ...,
        file_types: Sequence[str] = ...,
    ) -> Sequence[str] | None: ...


class RouteRegistrar(Protocol):
    def register_route(self, name: str, handler: Callable[..., Awaitable[Any]]) -> None: ...


async def pick_folder(window: DialogWindow) -> FolderPick:
    """Ask for a folder. The dialog blocks until answered and, like run_js, waits on the GUI
    thread, so it runs on a worker thread: never on the GUI thread or the core loop."""
    from app.contracts.replies import FolderPick  # lazy: keeps pydantic off the GUI start-up path

    chosen = await asyncio.to_thread(window.create_file_dialog, webview.FileDialog.FOLDER)
    return FolderPick(path=chosen[0] if chosen else None)


async def pick_file(window: DialogWindow, query: FilePickQuery) -> FolderPick:
    """Ask for one file to open (an MCP Bundle for "Install bundle…", a user_config file)."""
    from app.contracts.replies import FolderPick

    types = FILE_TYPES[query.kind]

    def ask() -> Sequence[str] | None:
        if types:
            return window.create_file_dialog(webview.FileDialog.OPEN, file_types=types)
        return window.create_file_dialog(webview.FileDialog.OPEN)

    chosen = await asyncio.to_thread(ask)
    return FolderPick(path=chosen[0] if chosen else None)


def register_dialog_routes(app: RouteRegistrar, window: DialogWindow) -> None:
    async def handle_pick_folder(_request: Any = None) -> FolderPick:
        return await pick_folder(window)

    async def handle_pick_file(request: FilePickQuery) -> FolderPick:
        return await pick_file(window, request)

    app.register_route(PICK_FOLDER_ROUTE, handle_pick_folder)
    app.register_route(PICK_FILE_ROUTE, handle_pick_file)
