"""Bridge: one sync `invoke` that hands work to the core loop and always answers an envelope."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from app.desktop.bridge import Bridge, PendingCalls
from app.desktop.core_loop import CoreLoop


class StandInApp:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], str]] = []
        self.cancelled = threading.Event()

    async def invoke(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((route, payload, threading.current_thread().name))
        if route == "boom":
            raise KeyError("kaboom")
        if route == "slow":
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        if route == "fail":
            return {"ok": False, "error": {"code": "not_found", "message": "no such chat", "details": {}}}
        return {"ok": True, "data": {"echo": payload}}


def test_the_envelope_from_the_app_is_returned_unchanged(core: CoreLoop) -> None:
    app = StandInApp()
    bridge = Bridge(app, core.loop)
    assert bridge.invoke("chats.list", {"a": [1, "ü"]}) == {"ok": True, "data": {"echo": {"a": [1, "ü"]}}}
    assert bridge.invoke("fail", {})["error"]["code"] == "not_found"


def test_the_route_runs_on_the_core_loop_thread(core: CoreLoop) -> None:
    app = StandInApp()
    Bridge(app, core.loop).invoke("chats.list", {})
    assert app.calls[0][2] == "test-core"


def test_a_missing_payload_is_sent_as_an_empty_object(core: CoreLoop) -> None:
    app = StandInApp()
    assert Bridge(app, core.loop).invoke("app.info") == {"ok": True, "data": {"echo": {}}}


def test_an_exception_in_the_app_becomes_an_internal_error_envelope(core: CoreLoop) -> None:
    result = Bridge(StandInApp(), core.loop).invoke("boom", {})
    assert result["ok"] is False
    assert result["error"]["code"] == "internal"
    assert "KeyError" in result["error"]["message"]


def test_a_call_that_times_out_answers_an_error_and_is_cancelled(core: CoreLoop) -> None:
    app = StandInApp()
    result = Bridge(app, core.loop, timeout_s=0.05).invoke("slow", {})
    assert result["ok"] is False
    assert result["error"]["details"]["reason"] == "timeout"
    assert app.cancelled.wait(5)


def test_malformed_arguments_from_the_page_are_rejected(core: CoreLoop) -> None:
    app = StandInApp()
    bridge = Bridge(app, core.loop)
    assert bridge.invoke(42, {})["error"]["code"] == "invalid"  # type: ignore[arg-type]
    assert bridge.invoke("x", [1, 2])["error"]["code"] == "invalid"  # type: ignore[arg-type]
    assert app.calls == []


def test_a_call_after_the_core_stopped_answers_shutting_down() -> None:
    core = CoreLoop()
    core.start()
    core.stop()
    result = Bridge(StandInApp(), core.loop).invoke("app.info", {})
    assert result["error"]["code"] == "unsupported"


def test_only_invoke_is_public_so_pywebview_exposes_nothing_else(core: CoreLoop) -> None:
    bridge = Bridge(StandInApp(), core.loop)
    assert [name for name in dir(bridge) if not name.startswith("_")] == ["invoke"]


def test_calls_made_while_the_app_is_still_starting_wait_for_it(core: CoreLoop) -> None:
    started = threading.Event()
    app = StandInApp()

    async def make_future() -> asyncio.Future[Any]:
        return asyncio.get_running_loop().create_future()

    future = core.run(make_future(), 5)
    bridge = Bridge(future, core.loop)
    results: list[dict[str, Any]] = []

    def call() -> None:
        started.set()
        results.append(bridge.invoke("app.info", {}))

    caller = threading.Thread(target=call)
    caller.start()
    started.wait(5)
    assert results == []
    core.loop.call_soon_threadsafe(future.set_result, app)
    caller.join(5)
    assert results == [{"ok": True, "data": {"echo": {}}}]


def test_calls_report_why_the_app_could_not_start(core: CoreLoop) -> None:
    async def failed() -> asyncio.Future[Any]:
        future = asyncio.get_running_loop().create_future()
        future.set_exception(OSError("settings.json is damaged"))
        return future

    result = Bridge(core.run(failed(), 5), core.loop).invoke("app.info", {})
    assert result["error"]["code"] == "internal"
    assert "settings.json is damaged" in result["error"]["message"]


def test_a_route_without_a_timeout_waits_as_long_as_the_user_does(core: CoreLoop) -> None:
    app = StandInApp()
    bridge = Bridge(app, core.loop, timeout_s=0.01, route_timeouts={"slowish": None})

    async def slowish(route: str, payload: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0.2)  # a person choosing a folder
        return {"ok": True, "data": {"path": "/x"}}

    app.invoke = slowish  # type: ignore[method-assign]
    assert bridge.invoke("slowish", {}) == {"ok": True, "data": {"path": "/x"}}
    assert bridge.invoke("other", {})["error"]["details"]["reason"] == "timeout"


def test_closing_releases_a_waiting_call_and_refuses_new_ones(core: CoreLoop) -> None:
    # pywebview's call threads are not daemons: one left waiting would keep the app alive.
    app = StandInApp()
    calls = PendingCalls()
    bridge = Bridge(app, core.loop, route_timeouts={"slow": None}, calls=calls)
    answers: list[dict[str, Any]] = []
    waiter = threading.Thread(target=lambda: answers.append(bridge.invoke("slow", {})))
    waiter.start()
    while not app.calls:  # bounded by the test timeout; the call reaches the loop at once
        threading.Event().wait(0.01)
    calls.close()
    waiter.join(5)
    assert not waiter.is_alive()
    assert answers[0]["ok"] is False
    assert bridge.invoke("chats.list", {})["error"]["code"] == "unsupported"
