"""Desktop presence end to end: the REAL app (`python -m app.desktop`) under Xvfb with a real
tray host (trayer) running, driven with real X input (XTEST) on the tray icon and over CDP in
both pages, against the scripted fake LLM server.

Covers: the tray menu's Quick Ask, a full turn with an inline approval in the Quick Ask window,
"Continue in CashCode", single instance (a second launch focuses the first; `--quick-ask "hi"`
fills the quick window), hide-to-tray, a notification for a hidden window's finished turn,
Quit from the tray with no processes left, the global hotkey, and no tray host at all.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.sync_api import Page, Playwright, expect, sync_playwright

from tests.desktop.assets_check import ui_is_built
from tests.desktop.harness import ROOT, DesktopProcess, desktop_command, invoke, launch
from tests.desktop.x11 import close_windows_of, selection_owned, titled_windows_of, tray_icon_center
from tests.desktop.x11 import windows_of as all_windows_of
from tests.desktop.xtest import Input
from tests.desktop.xvfb import xvfb
from tests.e2e.browser_helpers import open_view
from tests.e2e.conftest import FakeLLMProcess

pytestmark = [
    pytest.mark.desktop,
    pytest.mark.skipif(
        not ui_is_built() and not os.environ.get("CI"),
        reason="UI not built: cd frontend && npm ci && npm run build",
    ),
    pytest.mark.timeout(240),
]

WAIT_MS = 45_000
WAIT_S = WAIT_MS / 1000
QUICK_TITLE = "CashCode Quick Ask"
expect.set_options(timeout=WAIT_MS)
T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout_s: float = WAIT_S) -> T:
    """Poll `probe` until it returns something truthy (bounded); fail with `what` otherwise."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def tray_display() -> Iterator[str]:
    """A private X display with a tray host (trayer) owning the system-tray selection."""
    if shutil.which("trayer") is None:
        if os.environ.get("CI"):
            pytest.fail("trayer is missing: python build.py setup installs it (APT_TEST)")
        pytest.skip("trayer is not installed (apt-get install -y trayer)")
    with xvfb() as display:
        host = subprocess.Popen(
            ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "24"],
            env={**os.environ, "DISPLAY": display.name},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            wait_for("the tray host", lambda: selection_owned(display.name, b"_NET_SYSTEM_TRAY_S0"))
            yield display.name
        finally:
            host.terminate()
            host.wait(10)


@pytest.fixture
def pw() -> Iterator[Playwright]:
    with sync_playwright() as playwright:
        yield playwright


# The tray menu has eight entries; a tooltip or a balloon is a line or three.
MENU_MIN_HEIGHT = 120


class App:
    """One launched CashCode with helpers for its two pages and its tray icon."""

    def __init__(self, proc: DesktopProcess, pw: Playwright, env: dict[str, str]) -> None:
        self.proc = proc
        self.env = env
        self.main = proc.attach(pw)
        self.main.set_default_timeout(WAIT_MS)
        expect(self.main.get_by_test_id("composer-input")).to_be_editable()
        # By id, not title: Qt gives its other top-level windows (a message balloon) the
        # application's name as their title too.
        self.main_window = wait_for("the main window", lambda: self.windows().get("CashCode"))

    @property
    def display(self) -> str:
        return self.proc.display

    def quick(self) -> Page:
        page = self.proc.quick_page()
        page.set_default_timeout(WAIT_MS)
        return page

    def windows(self) -> dict[str, int]:
        return titled_windows_of(self.display, self.proc.proc.pid)

    def window_ids(self) -> set[int]:
        return set(all_windows_of(self.display, self.proc.proc.pid))

    def quick_visible(self) -> bool:
        return QUICK_TITLE in self.windows()

    def main_visible(self) -> bool:
        return self.main_window in self.windows().values()

    def tray_menu(self, *keys: str) -> None:
        """Right-click the tray icon and pick a menu item with the keyboard."""
        where = wait_for("the tray icon", lambda: tray_icon_center(self.display, self.proc.proc.pid))
        before = self.window_ids()
        with Input(self.display) as user:
            user.click(*where, button=3)
            # The menu, not any new window: a tooltip over the icon appears too on a slow
            # machine, and keys typed before the menu has the keyboard go elsewhere.
            wait_for("the tray menu", lambda: self._new_menu(before))
            user.key(*keys[:1])
            for key in keys[1:]:
                user.key(key)

    def _new_menu(self, before: set[int]) -> bool:
        from tests.desktop.x11 import window_geometry

        for window in self.window_ids() - before:
            try:
                height = window_geometry(self.display, window)[3]
            except RuntimeError:  # gone again
                continue
            if height >= MENU_MIN_HEIGHT:
                return True
        return False

    def second_launch(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, **self.env, "DISPLAY": self.display}
        return subprocess.run(
            [*desktop_command(), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )


@contextmanager
def running_app(
    display: str, env: dict[str, str], pw: Playwright, *, hint_seen: bool = True
) -> Iterator[App]:
    data = Path(env["CASHCODE_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    if hint_seen:
        # The first-time "still running in the tray" hint has its own test; elsewhere it would
        # be one more balloon to tell apart from a turn's notification.
        (data / "tray-hint-shown").touch()
    proc = launch(desktop_command(), env, display)
    try:
        yield App(proc, pw, env)
    finally:
        if proc.proc.poll() is None:
            proc.terminate()


@pytest.fixture
def tray_app(tray_display: str, seeded_env: dict[str, str], pw: Playwright) -> Iterator[App]:
    with running_app(tray_display, seeded_env, pw) as app:
        yield app


def test_tray_quick_ask_runs_a_turn_with_an_approval_and_continues_in_the_main_window(
    tray_app: App, fresh_llm: FakeLLMProcess, workspace: Path
) -> None:
    app = tray_app
    assert not app.quick_visible()  # created hidden at start-up
    app.tray_menu("Down", "Return")  # the first item: Quick Ask
    wait_for("the quick window", app.quick_visible)
    quick = app.quick()
    expect(quick.get_by_test_id("composer-input")).to_be_focused()

    fresh_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "quick.txt", "content": "from quick"}}]},
        {"text": "Done: quick.txt is written."},
    )
    quick.get_by_test_id("composer-input").fill("Write quick.txt please")
    quick.get_by_test_id("send-button").click()
    approval = quick.get_by_test_id("quick-approval")
    expect(approval).to_be_visible()
    assert not (workspace / "quick.txt").exists()
    approval.get_by_test_id("approval-once").click()
    reply = quick.get_by_test_id("message-assistant").last
    expect(reply).to_have_attribute("data-state", "done")
    expect(reply).to_contain_text("Done: quick.txt is written.")
    assert (workspace / "quick.txt").read_text(encoding="utf-8") == "from quick"

    quick.get_by_test_id("quick-continue").click()
    wait_for("the quick window to hide", lambda: not app.quick_visible())
    main = app.main
    expect(main).to_have_url(_chat_url())
    expect(main.get_by_test_id("message-user")).to_contain_text("Write quick.txt please")
    expect(main.get_by_test_id("message-assistant").last).to_contain_text("Done: quick.txt is written.")
    expect(main.get_by_test_id("tool-card")).to_have_count(1)
    chats = invoke(main, "chats.list")["data"]["chats"]
    assert len(chats) == 1  # the quick chat is an ordinary stored chat
    assert main.url.endswith(chats[0]["id"])


def test_a_second_launch_forwards_to_the_running_one_and_exits(tray_app: App, tmp_path: Path) -> None:
    app = tray_app
    app.main.evaluate(RECORD_EVENTS)
    skill = tmp_path / "greeter.zip"
    with zipfile.ZipFile(skill, "w") as archive:
        archive.writestr(
            "greeter/SKILL.md", "---\nname: greeter\ndescription: Says hello.\n---\nSay hello.\n"
        )
    handed = app.second_launch("--import-skill", str(skill))
    assert handed.returncode == 0, handed.stderr
    # The running instance's page is told to open its import preview for that file.
    app.main.wait_for_function(
        "path => window.__seen.some(e => e.type === 'import_skill_requested' && e.path === path)",
        arg=str(skill),
    )
    filled = app.second_launch("--quick-ask", "hi")
    assert filled.returncode == 0, filled.stderr
    wait_for("the quick window", app.quick_visible)
    quick = app.quick()
    expect(quick.get_by_test_id("composer-input")).to_have_value("hi")
    expect(quick.get_by_test_id("composer-input")).to_be_focused()

    again = app.second_launch()
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "CashCode is already running — brought it to the front"
    app.main.wait_for_function("() => document.hasFocus()")  # the first window has the focus
    assert app.proc.proc.poll() is None  # still one instance, still running
    chats_before = invoke(app.main, "chats.list")["data"]["chats"]
    assert chats_before == []  # forwarding created nothing

    # The Skill's import preview is open; dialogs do not stack (decision 296), so it is closed
    # before the next file is handed over.
    expect(app.main.get_by_test_id("skill-preview-name")).to_contain_text("greeter")
    app.main.get_by_test_id("skill-preview-cancel").click()
    expect(app.main.get_by_test_id("skill-preview")).to_have_count(0)

    # A double-clicked .mcpb (the file association runs `cashcode desktop FILE.mcpb`): the
    # running instance's page opens the bundle preview for it.
    bundle = tmp_path / "tool kit.mcpb"
    bundle.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    opened = app.second_launch(str(bundle))
    assert opened.returncode == 0, opened.stderr
    app.main.wait_for_function(
        "path => window.__seen.some(e => e.type === 'bundle_open_requested' && e.path === path)",
        arg=str(bundle),
    )
    expect(app.main.get_by_test_id("bundle-preview-error")).to_contain_text("no manifest.json")


def test_hide_to_tray_then_a_finished_turn_notifies_and_quit_leaves_no_process(
    tray_app: App, fresh_llm: FakeLLMProcess
) -> None:
    app = tray_app
    assert close_windows_of(app.display, app.proc.proc.pid, only=app.main_window) == 1
    wait_for("the main window to hide", lambda: not app.main_visible())
    assert app.proc.proc.poll() is None  # hidden to the tray, not quit

    fresh_llm.script({"text": "Finished while you were away."})
    chat = invoke(app.main, "chats.create", {"title": "Background"})["data"]
    before = app.window_ids()
    sent = invoke(app.main, "chat.send", {"chat_id": chat["id"], "text": "Work in the background"})
    assert sent["ok"], sent
    # The notification is the tray's message balloon: a new top-level window of the app.
    where = wait_for("a notification", lambda: _new_window_center(app, before))
    assert not app.main_visible()
    # Clicking it opens that chat in the main window.
    with Input(app.display) as user:
        user.click(*where)
    wait_for("the main window", app.main_visible)
    expect(app.main).to_have_url(_chat_url(chat["id"]))
    expect(app.main.get_by_test_id("message-assistant").last).to_contain_text("Finished while you were away.")

    app.tray_menu("Up", "Return")  # the last item: Quit
    assert app.proc.proc.wait(WAIT_S) == 0, app.proc.tail()
    assert app.proc.leftovers() == []
    data = Path(app.env["CASHCODE_DATA_DIR"])
    assert (data / "window-state.json").is_file() and (data / "quick-window-state.json").is_file()


def test_run_now_from_the_tray_runs_the_next_task_and_its_finished_run_notifies(
    tray_app: App, fresh_llm: FakeLLMProcess
) -> None:
    """Issue 29: the tray shows the next scheduled task with "Run now"; the run's turn ends in
    a notification (the window is hidden) whose click opens the task's chat."""
    app = tray_app
    draft = {
        "name": "Tray brief",
        "prompt": "Brief me",
        "schedule": {"kind": "daily", "hour": 7, "minute": 0},
    }
    added = invoke(app.main, "tasks.add", {"draft": draft})
    assert added["ok"], added
    task_id = added["data"]["task"]["id"]
    assert close_windows_of(app.display, app.proc.proc.pid, only=app.main_window) == 1
    wait_for("the main window to hide", lambda: not app.main_visible())
    fresh_llm.script({"text": "Brief from the tray."})
    before = app.window_ids()
    # From the bottom: Quit, then "Run now" (only there while a next task is shown).
    app.tray_menu("Up", "Up", "Return")
    where = wait_for("a notification", lambda: _new_window_center(app, before))

    def finished() -> Any:
        runs = invoke(app.main, "tasks.history", {"task_id": task_id})["data"]["runs"]
        return runs if runs and runs[0]["status"] != "running" else None

    runs = wait_for("the run", finished)
    assert (runs[0]["status"], runs[0]["trigger"]) == ("ok", "manual"), runs
    with Input(app.display) as user:
        user.click(*where)
    wait_for("the main window", app.main_visible)
    expect(app.main).to_have_url(_chat_url(runs[0]["chat_id"]))
    expect(app.main.get_by_test_id("message-assistant").last).to_contain_text("Brief from the tray.")


def test_an_inbox_item_of_a_hidden_window_notifies_and_the_trays_inbox_entry_opens_it(
    tray_app: App, fresh_llm: FakeLLMProcess, workspace: Path
) -> None:
    """Issue 35: an approval asked while the window is hidden is an Inbox item with one
    notification; the tray's "Inbox (1)" entry opens the main window on that item, focused on
    its main answer, and answering it there finishes the turn."""
    app = tray_app
    assert close_windows_of(app.display, app.proc.proc.pid, only=app.main_window) == 1
    wait_for("the main window to hide", lambda: not app.main_visible())
    fresh_llm.script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "away.txt", "content": "hi"}}]},
        {"text": "Written while you were away."},
    )
    chat = invoke(app.main, "chats.create", {"title": "Away"})["data"]
    before = app.window_ids()
    assert invoke(app.main, "chat.send", {"chat_id": chat["id"], "text": "Write away.txt"})["ok"]
    wait_for("a notification", lambda: _new_window_center(app, before))
    items = invoke(app.main, "inbox.list", {})["data"]["items"]
    assert [(i["kind"], i["who"], i["status"]) for i in items] == [("approval", "Away", "pending")]

    app.tray_menu("Down", "Down", "Down", "Return")  # the third item: Inbox (1)
    wait_for("the main window", app.main_visible)
    expect(app.main).to_have_url(re.compile(r"#/inbox\?item=" + re.escape(items[0]["id"]) + "$"))
    card = app.main.locator(f'[data-testid="inbox-item"][data-item-id="{items[0]["id"]}"]')
    expect(card.get_by_test_id("approval-once")).to_be_focused()
    expect(app.main.get_by_test_id("nav-inbox").get_by_test_id("inbox-badge")).to_have_text("1")
    # The key that opened it (the menu's Enter reaches the window again here) answered it
    # once; answers are held back for a moment after the item opens.
    expect(card).not_to_have_attribute("data-held", "true")
    assert invoke(app.main, "inbox.list", {})["data"]["items"][0]["status"] == "pending"
    app.main.keyboard.press("Enter")
    expect(card).to_have_attribute("data-status", "answered")
    expect(app.main.get_by_test_id("nav-inbox").get_by_test_id("inbox-badge")).to_have_count(0)
    wait_for("the file", lambda: (workspace / "away.txt").is_file())
    assert (workspace / "away.txt").read_text(encoding="utf-8") == "hi"


def test_the_global_hotkey_toggles_the_quick_window(tray_app: App) -> None:
    app = tray_app
    presence = invoke(app.main, "desktop.presence")["data"]
    assert presence["hotkey"]["active"] is True, presence
    assert presence["hotkey"]["binding"] == "Ctrl+Shift+Space"
    with Input(app.display) as user:
        user.key("Control_L", "Shift_L", "space")
        wait_for("the quick window", app.quick_visible)
    expect(app.quick().get_by_test_id("composer-input")).to_be_focused()
    app.quick().keyboard.press("Escape")  # Esc hides it again
    wait_for("the quick window to hide", lambda: not app.quick_visible())

    # Changed in Settings: the new shortcut works at once, the old one is released.
    bad = invoke(app.main, "desktop.set_hotkey", {"binding": "K"})
    assert bad["ok"] is False and bad["error"]["code"] == "invalid"
    changed = invoke(app.main, "desktop.set_hotkey", {"binding": "ctrl+alt+k"})["data"]
    assert (changed["hotkey"]["binding"], changed["hotkey"]["active"]) == ("Ctrl+Alt+K", True)
    assert invoke(app.main, "settings.get")["data"]["quick_ask_hotkey"] == "Ctrl+Alt+K"
    with Input(app.display) as user:
        user.key("Control_L", "Alt_L", "k")
        wait_for("the quick window", app.quick_visible)


def test_without_a_tray_host_the_app_says_why_and_closing_quits(
    xvfb_display: str, seeded_env: dict[str, str], pw: Playwright
) -> None:
    # A cold start straight into Quick Ask, filled: the request waits for the page to be ready.
    proc = launch([*desktop_command(), "--quick-ask", "cold start"], seeded_env, xvfb_display)
    try:
        app = App(proc, pw, seeded_env)
        wait_for("the quick window", app.quick_visible)
        expect(app.quick().get_by_test_id("composer-input")).to_have_value("cold start")
        presence = invoke(app.main, "desktop.presence")["data"]
        assert presence["tray"] is False
        assert "tray" in (presence["tray_reason"] or "").lower()
        open_view(app.main, "settings")
        expect(app.main.get_by_test_id("tray-status")).to_contain_text("No tray icon")
    finally:
        assert proc.close_window() == 0, proc.tail()
    assert proc.leftovers() == []


def test_the_first_close_to_tray_says_where_the_app_went_once(
    tray_display: str, seeded_env: dict[str, str], pw: Playwright
) -> None:
    with running_app(tray_display, seeded_env, pw, hint_seen=False) as app:
        before = app.window_ids()
        assert close_windows_of(app.display, app.proc.proc.pid, only=app.main_window) == 1
        wait_for("the main window to hide", lambda: not app.main_visible())
        wait_for("the tray hint", lambda: app.window_ids() - before)  # a message balloon
        assert (Path(seeded_env["CASHCODE_DATA_DIR"]) / "tray-hint-shown").exists()  # only once
        assert app.proc.terminate() == 0, app.proc.tail()  # SIGTERM still quits from the tray
        assert app.proc.leftovers() == []


# Records every event batch the desktop pusher hands to the page (the UI's own hook stays).
RECORD_EVENTS = """() => {
  window.__seen = [];
  const hook = window.__cashcode;
  const dispatch = hook.dispatch;
  hook.dispatch = (batch) => { window.__seen.push(...batch); dispatch(batch); };
}"""


def _chat_url(chat_id: str | None = None) -> Any:
    import re

    return re.compile(r"#/chat/" + (re.escape(chat_id) if chat_id else r"[\w-]+") + "$")


def _new_window_center(app: App, before: set[int]) -> tuple[int, int] | None:
    """The centre of a window that appeared since `before` and is still there."""
    from tests.desktop.x11 import window_geometry

    for window in app.window_ids() - before:
        try:
            x, y, width, height = window_geometry(app.display, window)
        except RuntimeError:  # gone again
            continue
        return x + width // 2, y + height // 2
    return None
