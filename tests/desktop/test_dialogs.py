from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import webview

from app.contracts.replies import FolderPick
from app.desktop.core_loop import CoreLoop
from app.desktop.dialogs import PICK_FOLDER_ROUTE, register_dialog_routes


class FakeDialogWindow:
    def __init__(self, answer: Sequence[str] | None) -> None:
        self.answer = answer
        self.calls: list[tuple[int, str]] = []

    def create_file_dialog(self, dialog_type: int = 10, directory: str = "") -> Sequence[str] | None:
        self.calls.append((dialog_type, threading.current_thread().name))
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
