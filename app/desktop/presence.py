"""Desktop presence around the shell: the tray icon, the global hotkey, notifications and the
adapter-only `desktop.*` routes the pages call (app/desktop/api_routes.py).

Threads: the tray is created on the GUI thread once the main page has loaded; bus events
arrive on the core loop and are only queued here; everything that waits (GUI queries, API
calls, hotkey registration) runs on the shell's actions thread or a worker.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Mapping
from typing import Any

from app.desktop.hotkey.base import HotkeyAdapter, HotkeyStatus
from app.desktop.hotkey.binding import FALLBACK_COMMAND, Binding, BindingError, parse_binding
from app.desktop.hotkey.choose import create_adapter
from app.desktop.shell import DesktopShell
from app.desktop.tray.base import (
    RECENT_LIMIT,
    InboxState,
    NextTask,
    RecentChat,
    TrayActions,
    TrayHost,
    TrayLabels,
    labels_for,
)
from app.desktop.tray.factory import create_tray
from app.settings.paths import AppPaths

log = logging.getLogger(__name__)

HINT_MARKER = "tray-hint-shown"
# An approval notifies as an Inbox item (`inbox_changed`), once per item, not per event.
_NOTIFY_TYPES = ("turn_done",)
_INBOX_TYPES = ("inbox_changed",)
_RECENT_TYPES = ("session_updated", "session_deleted", "turn_done")
_TASK_TYPES = ("tasks_changed", "task_run_finished")  # the tray's next scheduled task


class Presence:
    def __init__(
        self, shell: DesktopShell, paths: AppPaths, env: Mapping[str, str], platform: str = sys.platform
    ):
        self._shell = shell
        self._paths = paths
        self._env = env
        self._platform = platform
        self._labels: TrayLabels = TrayLabels()
        self.tray: TrayHost | None = None
        self._hotkey: HotkeyAdapter | None = None
        self._binding: Binding | None = None
        self._hotkey_status = HotkeyStatus(False, "not registered yet")
        self._titles: dict[str, str] = {}
        self._refresh_pending = threading.Event()
        self._app: Any = None
        # Inbox items already announced (or seen while the window was attended): at most one
        # notification per item. Pruned to the pending items at every refresh.
        self._announced: set[str] = set()
        self._inbox_seen = False  # the first refresh only learns what already waits

    # ---- GUI thread, once the main page has loaded ---------------------------------------------

    def start_tray(self, post: Any) -> None:
        settings = self._settings()
        self._labels = labels_for(getattr(settings, "language", "en"))
        actions = TrayActions(
            quick_ask=self._shell.toggle_quick,
            open_main=lambda: self._shell.show_main(None),
            open_chat=self._shell.show_main,
            quit=self._shell.quit,
            run_task=self._run_task,
            open_inbox=self._shell.show_inbox,
        )
        self.tray = create_tray(actions, self._labels, post, self._platform, self._current_labels)
        try:
            self.tray.start()
        except Exception as exc:  # a broken tray must never stop the window from opening
            log.warning("tray icon failed: %s", exc)
        self._shell.tray_available = self.tray.available
        self._shell.close_to_tray = self._close_to_tray
        self._shell.on_first_hide = self._first_hide_hint
        if self._app is not None:  # the app was built first: fill the recent chats now
            self._schedule_refresh()
            self._shell.submit(self._refresh_next_task)
            self._shell.submit(lambda: self._refresh_inbox(None))

    def _settings(self) -> Any:
        from app.settings.user_settings import SettingsError, SettingsStore, UserSettings

        try:
            return SettingsStore(self._paths.settings_path).load()
        except SettingsError:
            return UserSettings()

    def _current_labels(self) -> TrayLabels:
        """Tray texts in the language of the settings now (notifications use them too)."""
        self._labels = labels_for(getattr(self._settings(), "language", "en"))
        return self._labels

    def _close_to_tray(self) -> bool:
        return bool(self._settings().close_to_tray)

    def _first_hide_hint(self) -> None:
        marker = self._paths.data_dir / HINT_MARKER
        if marker.exists() or self.tray is None:
            return
        labels = self._current_labels()
        self.tray.notify(labels.still_running_title, labels.still_running_body, None)
        try:
            marker.touch()
        except OSError as exc:
            log.warning("could not remember the tray hint: %s", exc)

    # ---- once the app exists (core loop) -----------------------------------------------------

    def attach_app(self, app: Any) -> None:
        """Register the routes and follow the app's events. Called on the core loop."""
        self._app = app
        app.register_route("desktop.presence", self._route_presence)
        app.register_route("desktop.quick_hide", self._route_quick_hide)
        app.register_route("desktop.quick_chat", self._route_quick_chat)
        app.register_route("desktop.open_in_main", self._route_open_in_main)
        app.register_route("desktop.set_hotkey", self._route_set_hotkey)
        app.bus.subscribe(self.on_event)
        # Its own thread: a Wayland portal may wait for the user to confirm the shortcut.
        threading.Thread(target=self._start_hotkey, name="hotkey-setup", daemon=True).start()
        self._schedule_refresh()
        self._shell.submit(self._refresh_next_task)
        self._shell.submit(lambda: self._refresh_inbox(None))

    def on_event(self, event: Any) -> None:
        """Bus subscriber on the core loop: only queues work."""
        kind = getattr(event, "type", None)
        if kind in _NOTIFY_TYPES:
            self._shell.submit(lambda: self._maybe_notify(event))
        if kind in _RECENT_TYPES:
            self._schedule_refresh()
        if kind in _TASK_TYPES:
            self._shell.submit(self._refresh_next_task)
        if kind in _INBOX_TYPES:
            self._shell.submit(lambda: self._refresh_inbox(event))

    # ---- actions thread --------------------------------------------------------------------------

    def _schedule_refresh(self) -> None:
        if not self._refresh_pending.is_set():
            self._refresh_pending.set()
            self._shell.submit(self._refresh_recent)

    def _refresh_next_task(self) -> None:
        """The enabled task that runs next, for the tray menu (actions thread)."""
        link = self._shell.app_link()
        if link is None or self.tray is None:
            return
        reply = link.invoke("tasks.list", {})
        if not reply.get("ok"):
            return
        due = [t for t in reply["data"]["tasks"] if t["enabled"] and t["next_run"]]
        if not due:
            self.tray.set_next_task(None)
            return
        first = min(due, key=lambda t: t["next_run"])
        from datetime import datetime

        when = datetime.fromisoformat(first["next_run"]).astimezone().strftime("%a %H:%M")
        self.tray.set_next_task(NextTask(first["id"], first["name"], when))

    def _refresh_inbox(self, event: Any) -> None:
        """The tray's Inbox entry (count, oldest item), and a notification for an item added
        while its window is hidden or unfocused (actions thread). Items that waited before
        the app started (a restart) are counted, never announced."""
        from app.contracts.inbox import InboxItem  # lazy: pydantic off the launch path

        link = self._shell.app_link()
        if link is None or self.tray is None:
            return
        reply = link.invoke("inbox.list", {"include_answered": False})
        if not reply.get("ok"):
            return
        items = [InboxItem.model_validate(raw) for raw in reply["data"]["items"]]
        pending = sorted((i for i in items if i.status == "pending"), key=lambda i: i.created_at)
        self.tray.set_inbox(InboxState(len(pending), pending[0].id if pending else None))
        waiting = {i.id for i in pending}
        if not self._inbox_seen:
            self._inbox_seen = True
            self._announced |= waiting
        added = event is not None and getattr(event, "status", None) == "pending"
        item = next((i for i in pending if added and i.id == event.item_id), None)
        if item is not None and item.id not in self._announced:
            self._announced.add(item.id)
            self._notify_item(item)
        self._announced &= waiting

    def _notify_item(self, item: Any) -> None:
        if self.tray is None or not self.tray.can_notify or self._shell.quitting.is_set():
            return
        # The window that shows the item's chat (the Quick Ask one for its chat), else the main.
        if self._shell.attended(item.chat_id or ""):
            return
        labels = self._current_labels()
        title = {
            "elicitation": labels.question_title,
            "memory_review": labels.review_title,
        }.get(item.kind, labels.approval_title)
        who = item.who or labels.untitled
        self.tray.notify(title, f"{who}: {item.title}" if item.title else who, item.chat_id, item.id)

    def _run_task(self, task_id: str) -> None:
        """The tray's "Run now" (GUI thread: only queues)."""

        def run() -> None:
            link = self._shell.app_link()
            if link is not None:
                link.invoke("tasks.run", {"task_id": task_id})

        self._shell.submit(run)

    def _refresh_recent(self) -> None:
        self._refresh_pending.clear()
        link = self._shell.app_link()
        if link is None:
            return
        reply = link.invoke("chats.list", {})
        if not reply.get("ok"):
            return
        chats = sorted(reply["data"]["chats"], key=lambda c: c["updated_at"], reverse=True)
        self._titles = {c["id"]: c["title"] for c in chats}
        if self.tray is not None:
            self.tray.set_recent([RecentChat(c["id"], c["title"]) for c in chats[:RECENT_LIMIT]])

    def _maybe_notify(self, event: Any) -> None:
        if self.tray is None or not self.tray.can_notify or self._shell.quitting.is_set():
            return
        if self._shell.attended(event.chat_id):
            return
        if event.chat_id not in self._titles:
            self._refresh_recent()  # a chat newer than the last refresh: learn its title first
        labels = self._current_labels()
        title = self._titles.get(event.chat_id) or labels.untitled
        self.tray.notify(labels.done_title, title, event.chat_id)

    def _start_hotkey(self) -> None:
        self._hotkey = create_adapter(self._env, self._platform)
        raw = getattr(self._settings(), "quick_ask_hotkey", "")
        try:
            binding = parse_binding(raw, self._platform)
        except BindingError as exc:
            self._binding = parse_binding("", self._platform)
            self._hotkey_status = HotkeyStatus(False, f"the saved shortcut is not usable: {exc}")
            return
        self._bind(binding)

    def _bind(self, binding: Binding) -> HotkeyStatus:
        self._binding = binding
        if self._hotkey is None:
            self._hotkey = create_adapter(self._env, self._platform)
        try:
            self._hotkey_status = self._hotkey.register(binding, self._shell.toggle_quick)
        except Exception as exc:  # an adapter bug must leave a readable status, not a crash
            log.exception("hotkey registration failed")
            self._hotkey_status = HotkeyStatus(False, f"registration failed: {exc}")
        return self._hotkey_status

    def close(self) -> None:
        if self._hotkey is not None:
            self._hotkey.close()

    # ---- routes (core loop) ----------------------------------------------------------------------

    def view(self) -> Any:
        from app.desktop.api_models import HotkeyView, PresenceView

        binding = self._binding or parse_binding("", self._platform)
        status = self._hotkey_status
        return PresenceView(
            tray=bool(self.tray and self.tray.available),
            tray_reason=None
            if self.tray and self.tray.available
            else (self.tray.reason if self.tray else None),
            close_to_tray=self._close_to_tray(),
            hotkey=HotkeyView(
                binding=str(binding),
                active=status.active,
                reason=status.reason,
                fallback_command=FALLBACK_COMMAND,
            ),
            notifications=bool(self.tray and self.tray.can_notify),
        )

    async def _route_presence(self, _request: Any) -> Any:
        return self.view()

    async def _route_quick_hide(self, _request: Any) -> Any:
        from app.contracts.replies import Ok

        self._shell.hide_quick()
        return Ok()

    async def _route_quick_chat(self, request: Any) -> Any:
        from app.contracts.replies import Ok

        self._label_quick(self._shell.quick_chat_id, request.chat_id)
        self._shell.quick_chat_id = request.chat_id
        return Ok()

    async def _route_open_in_main(self, request: Any) -> Any:
        from app.contracts.replies import Ok

        self._label_quick(request.chat_id, None)  # continued in the main window: a chat now
        self._shell.open_in_main(request.chat_id)
        return Ok()

    def _label_quick(self, old: str | None, new: str | None) -> None:
        """The Quick Ask window's chat: its Inbox items say Quick Ask asks (core loop). Only
        the desktop knows which chat that is; the page reports it (`desktop.quick_chat`)."""
        from app.api.inbox import Label

        inbox = getattr(self._app, "inbox", None)
        if inbox is None:
            return
        if old and old != new:
            inbox.label(old, None)
        if new:
            inbox.label(new, Label("quick_ask"))

    async def _route_set_hotkey(self, request: Any) -> Any:
        from app.contracts.errors import ApiFailure, said, say

        try:
            binding = parse_binding(request.binding, self._platform)
        except BindingError as exc:
            raise ApiFailure("invalid", said(exc)) from exc
        await asyncio.to_thread(self._bind, binding)
        saved = "" if not request.binding.strip() else str(binding)
        reply = await self._app.invoke("settings.update", {"quick_ask_hotkey": saved})
        if not reply.get("ok"):
            raise ApiFailure("internal", say("hotkey.not_saved", reason=reply["error"]["message"]))
        return self.view()
