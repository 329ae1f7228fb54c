"""Linux: `QSystemTrayIcon` in the same process as the windows (tech-notes §3.1).

Created on the GUI thread before `webview.start`, after our own QApplication exists. Menu
callbacks run on the GUI thread and only queue work (app/desktop/shell.py). Updates from other
threads (recent chats, notifications) are posted to the GUI thread through `post`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
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

NO_HOST_REASON = (
    "No system tray was found on this desktop (no StatusNotifier/XEmbed tray host is running; "
    "on GNOME it needs the AppIndicator extension). Closing the window quits CashCode."
)


class QtTray:
    def __init__(
        self,
        actions: TrayActions,
        labels: TrayLabels,
        post: Callable[[Callable[[], None]], None],
        icon_path: str | None = None,
        labels_for: Callable[[], TrayLabels] | None = None,
    ) -> None:
        self._actions = actions
        self._labels = labels
        self._post = post
        self._icon_path = icon_path
        self._labels_for = labels_for  # the labels for the current language setting
        self._named: tuple[Any, ...] = ()
        self._tray: Any = None
        self._menu: Any = None
        self._recent_menu: Any = None
        self._available = False
        self._reason: str | None = None
        self._last_chat: str | None = None  # what a click on the last message opens
        self._last_item: str | None = None  # ... or this Inbox item, when the message was one
        self._inbox_item: Any = None
        self._inbox = InboxState()
        self._next_item: Any = None
        self._run_item: Any = None
        self._next: NextTask | None = None

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
        """GUI thread. Without a tray host nothing is created and `reason` says why."""
        from qtpy import QtWidgets

        if not QtWidgets.QSystemTrayIcon.isSystemTrayAvailable():
            self._reason = NO_HOST_REASON
            return
        self._tray = QtWidgets.QSystemTrayIcon(self._icon())
        self._tray.setToolTip("CashCode")
        self._menu = QtWidgets.QMenu()
        self._menu.setObjectName("cashcode-tray-menu")
        quick = self._menu.addAction(self._labels.quick_ask)
        quick.triggered.connect(lambda: self._actions.quick_ask())
        open_main = self._menu.addAction(self._labels.open_main)
        open_main.triggered.connect(lambda: self._actions.open_main())
        self._inbox_item = self._menu.addAction(self._labels.inbox_entry(0))
        self._inbox_item.setObjectName("cashcode-tray-inbox")
        self._inbox_item.triggered.connect(lambda: self._actions.open_inbox(self._inbox.oldest_id))
        self._recent_menu = self._menu.addMenu(self._labels.recent)
        self._fill_recent([])
        self._next_item = self._menu.addAction(self._labels.no_tasks)
        self._run_item = self._menu.addAction(self._labels.run_now)
        self._run_item.triggered.connect(self._run_next)
        self._fill_next(None)
        self._menu.addSeparator()
        quit_action = self._menu.addAction(self._labels.quit)
        quit_action.triggered.connect(lambda: self._actions.quit())
        self._named = (quick, open_main, self._recent_menu, quit_action)
        self._menu.aboutToShow.connect(self._follow_language)
        # The icon needs a context menu to show at all on some hosts (tech-notes §3.1).
        self._tray.setContextMenu(self._menu)
        self._tray.activated.connect(self._on_activated)
        self._tray.messageClicked.connect(self._on_message_clicked)
        self._tray.show()
        self._available = True

    def _follow_language(self) -> None:
        """The language may have changed in Settings since the menu was built (GUI thread)."""
        if self._labels_for is None:
            return
        labels = self._labels_for()
        if labels == self._labels:
            return
        self._labels = labels
        quick, open_main, recent, quit_action = self._named
        quick.setText(labels.quick_ask)
        open_main.setText(labels.open_main)
        recent.setTitle(labels.recent)
        quit_action.setText(labels.quit)
        self._fill_next(self._next)
        self._fill_inbox(self._inbox)

    def _icon(self) -> Any:
        from qtpy import QtGui

        if self._icon_path:
            icon = QtGui.QIcon(self._icon_path)
            if not icon.isNull():
                return icon
        pixmap = QtGui.QPixmap(32, 32)  # a plain mark when no icon file ships
        pixmap.fill(QtGui.QColor("#4b5bd6"))
        return QtGui.QIcon(pixmap)

    def _on_activated(self, reason: Any) -> None:
        from qtpy import QtWidgets

        if reason == QtWidgets.QSystemTrayIcon.ActivationReason.Trigger:  # a left click
            self._actions.open_main()

    def _on_message_clicked(self) -> None:
        if self._last_item:
            self._actions.open_inbox(self._last_item)
        elif self._last_chat:
            self._actions.open_chat(self._last_chat)
        else:
            self._actions.open_main()

    def _fill_recent(self, chats: Sequence[RecentChat]) -> None:
        menu = self._recent_menu
        menu.clear()
        if not chats:
            menu.addAction(self._labels.no_chats).setEnabled(False)
            return
        for chat in chats:
            action = menu.addAction(short_title(chat.title, self._labels.untitled))
            action.triggered.connect(lambda _checked=False, cid=chat.chat_id: self._actions.open_chat(cid))

    def _fill_next(self, task: NextTask | None) -> None:
        self._next = task
        text = (
            self._labels.next_task.format(name=short_title(task.name, ""), when=task.when) if task else None
        )
        self._next_item.setText(text or self._labels.no_tasks)
        self._next_item.setEnabled(False)  # information, not an action
        self._run_item.setText(self._labels.run_now)
        self._run_item.setVisible(task is not None)

    def _fill_inbox(self, state: InboxState) -> None:
        self._inbox = state
        self._inbox_item.setText(self._labels.inbox_entry(state.pending))

    def set_inbox(self, state: InboxState) -> None:
        if self._available:
            self._post(lambda: self._fill_inbox(state))

    def _run_next(self) -> None:
        if self._next is not None:
            self._actions.run_task(self._next.task_id)

    def set_next_task(self, task: NextTask | None) -> None:
        if self._available:
            self._post(lambda: self._fill_next(task))

    def set_recent(self, chats: Sequence[RecentChat]) -> None:
        if self._available:
            items = list(chats)
            self._post(lambda: self._fill_recent(items))

    def notify(self, title: str, body: str, chat_id: str | None, item_id: str | None = None) -> None:
        if not self._available:
            return

        def show() -> None:
            self._last_chat = chat_id
            self._last_item = item_id
            self._tray.showMessage(title, body)

        self._post(show)

    def stop(self) -> None:
        """GUI thread (or after the loop ended): remove the icon."""
        if self._tray is not None:
            self._tray.hide()
            self._available = False
