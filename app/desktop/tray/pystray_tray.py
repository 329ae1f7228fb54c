"""Windows and macOS: the tray icon through pystray (tech-notes §3.1). Written to the notes'
recipes but verified only on Linux CI by import; see docs/decisions.md.

- Windows: `Icon.run()` on its own thread (safe there); notifications are pystray's balloon
  messages (`Icon.notify`).
- macOS: pywebview owns the main thread and the Cocoa run loop, so the icon uses
  `run_detached()` on the shared NSApplication; notifications go through Notification Center
  with `osascript` (argv list, no shell), which cannot report clicks.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any

from app.desktop.tray.base import (
    InboxState,
    NextTask,
    RecentChat,
    TrayActions,
    TrayLabels,
    short_title,
)

log = logging.getLogger(__name__)


class PystrayTray:
    def __init__(
        self,
        actions: TrayActions,
        labels: TrayLabels,
        platform: str = sys.platform,
        icon_path: str | None = None,
    ) -> None:
        self._actions = actions
        self._icon_path = icon_path
        self._labels = labels
        self._platform = platform
        self._recent: list[RecentChat] = []
        self._next: NextTask | None = None
        self._inbox = InboxState()
        self._icon: Any = None
        self._available = False
        self._reason: str | None = None
        self._last_chat: str | None = None

    @property
    def available(self) -> bool:
        return self._available

    @property
    def reason(self) -> str | None:
        return self._reason

    @property
    def can_notify(self) -> bool:
        return self._available

    def start(self) -> None:
        try:
            import pystray
            from PIL import Image
        except ImportError as exc:
            self._reason = f"The tray library is not installed ({exc}). Closing the window quits CashCode."
            return
        image = Image.open(self._icon_path) if self._icon_path else Image.new("RGB", (32, 32), (75, 91, 214))
        self._icon = pystray.Icon(
            "cashcode", image, "CashCode", menu=pystray.Menu(lambda: self._items(pystray))
        )
        try:
            if self._platform == "darwin":
                from AppKit import NSApplication  # pyobjc ships with pywebview on macOS

                self._icon.run_detached(darwin_nsapplication=NSApplication.sharedApplication())
            else:
                threading.Thread(target=self._icon.run, name="tray", daemon=True).start()
        except Exception as exc:  # no tray host, or a backend error: run without a tray
            self._reason = f"The tray icon could not start ({exc}). Closing the window quits CashCode."
            return
        self._available = True

    def _items(self, pystray: Any) -> list[Any]:
        item = pystray.MenuItem
        recent = [
            item(short_title(c.title, self._labels.untitled), self._opener(c.chat_id)) for c in self._recent
        ] or [item(self._labels.no_chats, None, enabled=False)]
        return [
            item(self._labels.quick_ask, lambda: self._actions.quick_ask(), default=True),
            item(self._labels.open_main, lambda: self._actions.open_main()),
            item(self._labels.inbox_entry(self._inbox.pending), self._open_inbox),
            item(self._labels.recent, pystray.Menu(*recent)),
            *self._task_items(pystray),
            pystray.Menu.SEPARATOR,
            item(self._labels.quit, lambda: self._actions.quit()),
        ]

    def _task_items(self, pystray: Any) -> list[Any]:
        item = pystray.MenuItem
        task = self._next
        if task is None:
            return [item(self._labels.no_tasks, None, enabled=False)]
        text = self._labels.next_task.format(name=short_title(task.name, ""), when=task.when)
        return [
            item(text, None, enabled=False),
            item(self._labels.run_now, lambda: self._actions.run_task(task.task_id)),
        ]

    def set_next_task(self, task: NextTask | None) -> None:
        self._next = task
        if self._icon is not None:
            self._icon.update_menu()

    def _open_inbox(self) -> None:
        self._actions.open_inbox(self._inbox.oldest_id)

    def set_inbox(self, state: InboxState) -> None:
        self._inbox = state
        if self._icon is not None:
            self._icon.update_menu()

    def _opener(self, chat_id: str) -> Any:
        return lambda: self._actions.open_chat(chat_id)

    def set_recent(self, chats: Sequence[RecentChat]) -> None:
        self._recent = list(chats)
        if self._icon is not None:
            self._icon.update_menu()

    def notify(self, title: str, body: str, chat_id: str | None, item_id: str | None = None) -> None:
        if not self._available:
            return
        self._last_chat = chat_id
        if self._platform == "darwin":
            script = "on run argv\ndisplay notification (item 2 of argv) with title (item 1 of argv)\nend run"
            subprocess.Popen(["osascript", "-e", script, title, body])
        else:
            self._icon.notify(body, title)

    def stop(self) -> None:
        if self._icon is not None:
            self._icon.stop()
            self._available = False
