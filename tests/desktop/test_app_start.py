"""Building, wiring and closing the app on the core loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from app.contracts.events import Delta
from app.core.bus import EventBus
from app.desktop.app_start import close_app, spawn, start_app, wire_app
from app.desktop.core_loop import CoreLoop
from app.desktop.dialogs import PICK_FOLDER_ROUTE
from app.desktop.pusher import EventPusher
from app.settings.paths import AppPaths


class StandInApp:
    def __init__(self) -> None:
        self.bus = EventBus()
        self.routes: dict[str, Any] = {}
        self.closed = False

    async def invoke(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "data": {}}

    def register_route(self, name: str, handler: Any) -> None:
        self.routes[name] = handler

    async def aclose(self) -> None:
        self.closed = True


class RecordingWindow:
    def __init__(self) -> None:
        self.scripts: list[str] = []
        self.html: list[str] = []
        self.loaded = threading.Event()

    def run_js(self, script: str) -> None:
        self.scripts.append(script)

    def load_html(self, content: str) -> None:
        self.html.append(content)
        self.loaded.set()


PATHS = AppPaths.from_env({"CASHCODE_DATA_DIR": "/tmp/x"})


def test_sync_and_async_factories_both_build_the_app(core: CoreLoop) -> None:
    app = StandInApp()

    async def async_factory(paths: AppPaths, env: Any) -> StandInApp:
        return app

    assert core.run(start_app(lambda p, e: app, PATHS, {}), 5) is app
    assert core.run(start_app(async_factory, PATHS, {}), 5) is app


def test_a_built_app_feeds_the_pusher_and_serves_the_folder_picker(core: CoreLoop) -> None:
    app = StandInApp()
    window = RecordingWindow()
    pusher = EventPusher(window)
    pusher.start()
    task = core.run(spawn(start_app(lambda p, e: app, PATHS, {})), 5)
    core.run(wire_app(task, window, pusher), 5)
    assert PICK_FOLDER_ROUTE in app.routes

    async def publish() -> None:
        app.bus.publish(Delta(chat_id="c", turn_id="t", text="hi"))

    core.run(publish(), 5)
    assert pusher.stop()
    assert len(window.scripts) == 1 and '"text":"hi"' in window.scripts[0]


def test_a_failed_build_shows_the_reason_in_the_window(core: CoreLoop) -> None:
    def broken(paths: AppPaths, env: Any) -> StandInApp:
        raise OSError("disk full")

    window = RecordingWindow()
    task = core.run(spawn(start_app(broken, PATHS, {})), 5)
    core.run(wire_app(task, window, EventPusher(window)), 5)
    assert window.loaded.wait(5)
    assert "could not start" in window.html[0] and "disk full" in window.html[0]
    core.run(close_app(task, 1), 5)  # nothing to close, no error


def test_closing_waits_for_a_build_in_flight_then_closes_the_app(core: CoreLoop) -> None:
    app = StandInApp()

    async def slow_factory(paths: AppPaths, env: Any) -> StandInApp:
        await asyncio.sleep(0.1)
        return app

    task = core.run(spawn(start_app(slow_factory, PATHS, {})), 5)
    core.run(close_app(task, 5), 10)
    assert app.closed
