from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import webview

from app.contracts.replies import FilePickQuery, FolderPick
from app.desktop.core_loop import CoreLoop
from app.desktop.dialogs import PICK_FILE_ROUTE, PICK_FOLDER_ROUTE, register_dialog_routes


class FakeDialogWindow:
    def __init__(self, answer: Sequence[str] | None) -> None:
        self.answer = answer
        self.calls: list[tuple[int, str]] = []
        self.file_types: Sequence[str] = ()

    def create_file_dialog(
        self,
        dialog_type: int = 10,
        directory: str = "",
        allow_multiple: bool = False,
        save_filename: str = "",
        file_types: Sequence[str] = (),
    ) -> Sequence[str] | None:
        self.calls.append((dialog_type, threading.current_thread().name))
        self.file_types = file_types
        return self.answer


class Registrar:
    def __init__(self) -> None:
        self.routes: dict[str, Any] = {}

    def register_route(self, name: str, handler: Any) -> None:
        self.routes[name] = handler


def test_pick_folder_opens_a_folder_dialog_off_the_core_thread(core: CoreLoop) -> None:
    window = FakeDialogWindow(["/home/me/project"])
    registrar = Registrar()
    register_dialog_routes(registrar, window)
    result = core.run(registrar.routes[PICK_FOLDER_ROUTE](), 5)
    assert result == FolderPick(path="/home/me/project")
    [(kind, thread)] = window.calls
    assert kind == webview.FileDialog.FOLDER
    assert thread not in ("test-core", threading.main_thread().name)


def test_a_cancelled_dialog_answers_no_path(core: CoreLoop) -> None:
    registrar = Registrar()
    register_dialog_routes(registrar, FakeDialogWindow(None))
    assert core.run(registrar.routes[PICK_FOLDER_ROUTE](), 5) == FolderPick(path=None)


def test_pick_file_offers_mcp_bundles_for_install_bundle(core: CoreLoop) -> None:
    window = FakeDialogWindow(["/home/me/kit.mcpb"])
    registrar = Registrar()
    register_dialog_routes(registrar, window)
    result = core.run(registrar.routes[PICK_FILE_ROUTE](FilePickQuery(kind="mcpb")), 5)
    assert result == FolderPick(path="/home/me/kit.mcpb")
    [(kind, thread)] = window.calls
    offered = tuple(window.file_types)
    assert kind == webview.FileDialog.OPEN and offered == ("MCP Bundle (*.mcpb)",)
    assert thread not in ("test-core", threading.main_thread().name)
    core.run(registrar.routes[PICK_FILE_ROUTE](FilePickQuery()), 5)
    assert tuple(window.file_types) == ()  # any file (a user_config file option)
