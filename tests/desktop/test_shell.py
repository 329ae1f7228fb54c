"""The shell's routing of requests to windows, with recording stand-ins for the windows and the
GUI (the real windows are covered by tests/e2e/test_desktop_presence.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from app.desktop.core_loop import CoreLoop
from app.desktop.launch_args import LaunchRequest
from app.desktop.presence import Presence
from app.desktop.shell import HIDDEN_PUSH_S, VISIBLE_PUSH_S, DesktopShell, ShellWindow
from app.desktop.tray.base import InboxState, RecentChat
from app.settings.paths import AppPaths


class _Hook:
    def __init__(self) -> None:
        self.handlers: list[Callable[..., Any]] = []

    def __iadd__(self, handler: Callable[..., Any]) -> _Hook:
        self.handlers.append(handler)
        return self

    def fire(self) -> None:
        for handler in self.handlers:
            handler()


class _Events:
    def __init__(self) -> None:
        self.loaded = _Hook()
        self.shown = threading.Event()
        self.shown.set()  # the GUI created the window


class FakeWindow:
    def __init__(self, uid: str) -> None:
        self.uid = uid
        self.events = _Events()
        self.destroyed = threading.Event()

    def destroy(self) -> None:
        self.destroyed.set()


class FakePusher:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.got = threading.Event()
        self.intervals: list[float] = []

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        self.got.set()

    def set_interval(self, interval_s: float) -> None:
        self.intervals.append(interval_s)


class FakeOps:
    def __init__(self) -> None:
        self.visible: set[str] = set()
        self.active: str | None = None
        self.log: list[tuple[str, str]] = []
        self.done = threading.Event()

    def focus(self, window: Any) -> None:
        self.visible.add(window.uid)
        self.active = window.uid
        self.log.append(("focus", window.uid))

    def hide(self, window: Any) -> None:
        self.visible.discard(window.uid)
        self.log.append(("hide", window.uid))

    def is_visible(self, window: Any) -> bool:
        return window.uid in self.visible

    def is_active(self, window: Any) -> bool:
        return self.active == window.uid and window.uid in self.visible

    def post(self, job: Callable[[], None]) -> None:
        job()


@pytest.fixture
def parts() -> Any:
    ops = FakeOps()
    main = ShellWindow(FakeWindow("main"), FakePusher())  # type: ignore[arg-type]
    quick = ShellWindow(FakeWindow("quick"), FakePusher())  # type: ignore[arg-type]
    shell = DesktopShell(ops, main, None, lambda: quick)  # made once the main page loaded
    shell.start()
    main.window.events.loaded.fire()
    drain(shell)
    quick.window.events.loaded.fire()
    yield ops, main, quick, shell
    shell.stop()


def drain(shell: DesktopShell) -> None:
    """Wait until every queued request ran (requests run in order on one thread)."""
    done = threading.Event()
    shell.submit(done.set)
    assert done.wait(10)


def test_quick_ask_with_text_shows_the_quick_window_and_fills_it(parts: Any) -> None:
    ops, main, quick, shell = parts
    shell.handle_launch(LaunchRequest(quick_ask=True, quick_text="hi"))
    drain(shell)
    assert ops.log == [("focus", "quick")]
    assert quick.pusher.events == [{"type": "desktop_command", "action": "quick_opened", "text": "hi"}]
    assert main.pusher.events == []


def test_the_quick_windows_events_are_paced_for_frames_only_while_it_shows(parts: Any) -> None:
    ops, main, quick, shell = parts
    assert quick.pusher.intervals == [HIDDEN_PUSH_S]  # created hidden
    shell.show_quick()
    drain(shell)
    assert quick.pusher.intervals[-1] == VISIBLE_PUSH_S < HIDDEN_PUSH_S
    shell.hide_quick()
    drain(shell)
    assert quick.pusher.intervals[-1] == HIDDEN_PUSH_S
    assert shell.on_quick_closing() is False
    assert quick.pusher.intervals[-1] == HIDDEN_PUSH_S
    assert main.pusher.intervals == []  # the main window always follows every frame


def test_continue_in_cashcode_hides_the_quick_window_and_opens_the_chat_in_main(parts: Any) -> None:
    ops, main, quick, shell = parts
    shell.show_quick()
    shell.open_in_main("chat-1")
    drain(shell)
    assert ops.log == [("focus", "quick"), ("hide", "quick"), ("focus", "main")]
    assert main.pusher.events == [
        {"type": "desktop_command", "action": "open_chat", "open_chat_id": "chat-1"}
    ]


def test_closing_the_main_window_hides_it_only_when_a_tray_exists(parts: Any) -> None:
    ops, main, quick, shell = parts
    hints: list[str] = []
    shell.on_first_hide = lambda: hints.append("hint")
    shell.tray_available = False
    assert shell.on_main_closing() is True  # no tray: close (and quit) as before
    shell.quitting.clear()
    shell.tray_available = True
    shell.close_to_tray = lambda: False
    assert shell.on_main_closing() is True  # the setting is off
    shell.quitting.clear()
    shell.close_to_tray = lambda: True
    assert shell.on_main_closing() is False  # hidden to the tray instead
    drain(shell)
    assert ("hide", "main") in ops.log and hints == ["hint"]


def test_the_main_window_gone_closes_the_quick_window_too(parts: Any) -> None:
    _ops, _main, quick, shell = parts
    shell.on_main_closed()
    assert quick.window.destroyed.wait(10)
    assert shell.quitting.is_set()


def test_the_quick_window_and_the_tray_wait_for_the_main_page_and_requests_wait_for_them() -> None:
    ops = FakeOps()
    main = ShellWindow(FakeWindow("main"), FakePusher())  # type: ignore[arg-type]
    quick = ShellWindow(FakeWindow("quick"), FakePusher())  # type: ignore[arg-type]
    made: list[str] = []

    def make_quick() -> ShellWindow:
        made.append("quick")
        return quick

    shell = DesktopShell(ops, main, None, make_quick)
    shell.after_first_paint(lambda: made.append("tray"))
    shell.start()
    shell.handle_launch(LaunchRequest(quick_ask=True, quick_text="hi"))  # e.g. --quick-ask at start-up
    try:
        assert not main.loaded.wait(0.2)
        assert made == [] and shell.quick is None and ops.log == []  # nothing before the first paint
        main.window.events.loaded.fire()
        deadline = time.monotonic() + 10
        while made != ["quick", "tray"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert made == ["quick", "tray"]  # the window first, then the other deferred jobs
        quick.window.events.loaded.fire()  # the quick request waits for its page
        drain(shell)
        assert shell.quick is quick and ops.log == [("focus", "quick")]
        assert quick.pusher.intervals == [HIDDEN_PUSH_S, VISIBLE_PUSH_S]  # made hidden, then shown
        assert quick.pusher.events == [{"type": "desktop_command", "action": "quick_opened", "text": "hi"}]
    finally:
        shell.stop()


def test_no_quick_window_is_made_once_the_main_window_closed_first() -> None:
    main = ShellWindow(FakeWindow("main"), FakePusher())  # type: ignore[arg-type]
    made: list[str] = []
    ops: Any = FakeOps()
    shell = DesktopShell(ops, main, None, lambda: made.append("quick"))
    shell.start()
    try:
        shell.on_main_closed()
        main.window.events.loaded.fire()
        drain(shell)
        assert made == [] and shell.quick is None
    finally:
        shell.stop()


def test_a_chat_is_attended_only_when_its_window_is_visible_and_focused(parts: Any) -> None:
    ops, _main, _quick, shell = parts
    shell.quick_chat_id = "q"
    assert not shell.attended("q") and not shell.attended("m")
    ops.focus(shell.main.window)
    assert shell.attended("m") and not shell.attended("q")  # q lives in the hidden quick window


class FakeTray:
    available = True
    reason = None
    can_notify = True

    def __init__(self) -> None:
        self.notes: list[tuple[str, str, str | None]] = []
        self.items: list[str | None] = []  # the Inbox item each note opens
        self.recent: list[RecentChat] = []
        self.next_task: Any = None
        self.inbox = InboxState()

    def start(self) -> None: ...

    def set_recent(self, chats: Any) -> None:
        self.recent = list(chats)

    def set_next_task(self, task: Any) -> None:
        self.next_task = task

    def set_inbox(self, state: InboxState) -> None:
        self.inbox = state

    def notify(self, title: str, body: str, chat_id: str | None, item_id: str | None = None) -> None:
        self.notes.append((title, body, chat_id))
        self.items.append(item_id)

    def stop(self) -> None: ...


class _Event:
    def __init__(self, type: str, chat_id: str, title: str = "") -> None:
        self.type = type
        self.chat_id = chat_id
        self.title = title


class FakeApp:
    async def invoke(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        assert route == "chats.list"
        chats = [
            {"id": f"c{i}", "title": f"Chat {i}", "updated_at": f"2026-01-0{i}T00:00:00Z"}
            for i in range(1, 8)
        ]
        return {"ok": True, "data": {"chats": chats}}


def test_notifications_only_for_chats_whose_window_is_not_attended(
    parts: Any, tmp_path: Any, core: CoreLoop
) -> None:
    ops, _main, _quick, shell = parts
    shell.attach_app(FakeApp(), core.loop)
    presence = Presence(shell, AppPaths(tmp_path, tmp_path, tmp_path, tmp_path), {})
    tray = FakeTray()
    presence.tray = tray
    shell.quick_chat_id = "c2"
    presence.on_event(_Event("turn_done", "c1"))  # main hidden: notify
    drain(shell)
    shell.submit(lambda: ops.focus(shell.main.window))
    presence.on_event(_Event("turn_done", "c1"))  # main focused: no notification
    presence.on_event(_Event("turn_done", "c2"))  # the quick window is hidden
    # An approval notifies as its Inbox item (tests/desktop/test_tray_inbox.py), not per event.
    presence.on_event(_Event("approval_required", "c2", "Run ls"))
    drain(shell)
    assert tray.notes == [
        ("CashCode: answer ready", "Chat 1", "c1"),
        ("CashCode: answer ready", "Chat 2", "c2"),
    ]
    assert [c.chat_id for c in tray.recent] == ["c7", "c6", "c5", "c4", "c3"]  # the five most recent


def test_notifications_follow_the_language_setting(parts: Any, tmp_path: Any, core: CoreLoop) -> None:
    _ops, _main, _quick, shell = parts
    shell.attach_app(FakeApp(), core.loop)
    paths = AppPaths(tmp_path, tmp_path, tmp_path, tmp_path)
    presence = Presence(shell, paths, {})
    tray = FakeTray()
    presence.tray = tray
    paths.settings_path.write_text('{"language": "zh-CN"}', encoding="utf-8")  # changed in Settings
    presence.on_event(_Event("turn_done", "c1"))
    drain(shell)
    assert tray.notes == [("CashCode：回答已完成", "Chat 1", "c1")]
