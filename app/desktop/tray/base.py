"""What every tray adapter offers, and the menu it shows (the same on every OS)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

RECENT_LIMIT = 5
TITLE_LIMIT = 48


@dataclass(frozen=True)
class RecentChat:
    chat_id: str
    title: str


@dataclass(frozen=True)
class NextTask:
    """The scheduled task that runs next (the tray shows it with "Run now")."""

    task_id: str
    name: str
    when: str  # local time, already formatted


def _no_task(_task_id: str) -> None:
    """Default for adapters' tests built before scheduled tasks existed."""


def _no_inbox(_item_id: str | None) -> None:
    """Default for adapters' tests built before the Inbox existed."""


@dataclass(frozen=True)
class InboxState:
    """What the tray shows of the Inbox: how many items wait and which is the oldest."""

    pending: int = 0
    oldest_id: str | None = None


@dataclass(frozen=True)
class TrayActions:
    """Callbacks of the menu items. They may run on the GUI thread: each must only queue work."""

    quick_ask: Callable[[], None]
    open_main: Callable[[], None]
    open_chat: Callable[[str], None]
    quit: Callable[[], None]
    run_task: Callable[[str], None] = field(default=_no_task)
    # The Inbox entry and an Inbox notification: the main window on that item (None: the view).
    open_inbox: Callable[[str | None], None] = field(default=_no_inbox)


@dataclass(frozen=True)
class TrayLabels:
    quick_ask: str = "Quick Ask"
    open_main: str = "Open CashCode"
    recent: str = "Recent chats"
    no_chats: str = "No chats yet"
    quit: str = "Quit"
    untitled: str = "Untitled chat"
    still_running_title: str = "CashCode is still running"
    still_running_body: str = (
        "It is in the tray. Use the tray icon to open it again, or Quit there to end it."
    )
    done_title: str = "CashCode: answer ready"
    approval_title: str = "CashCode needs your approval"
    next_task: str = "Next: {name} at {when}"
    no_tasks: str = "No scheduled task"
    run_now: str = "Run now"
    inbox: str = "Inbox ({count})"
    inbox_empty: str = "Inbox"
    question_title: str = "CashCode has a question for you"
    review_title: str = "CashCode: a memory to review"

    def inbox_entry(self, count: int) -> str:
        """The menu's Inbox entry: "Inbox (3)" while items wait, plain "Inbox" otherwise."""
        return self.inbox.format(count=count) if count > 0 else self.inbox_empty


ZH_LABELS = TrayLabels(
    quick_ask="快速提问",
    open_main="打开 CashCode",
    recent="最近的对话",
    no_chats="还没有对话",
    quit="退出",
    untitled="未命名对话",
    still_running_title="CashCode 仍在运行",
    still_running_body="它在系统托盘中。点击托盘图标可重新打开，或在那里选择“退出”。",
    done_title="CashCode：回答已完成",
    approval_title="CashCode 需要你的批准",
    next_task="下一个任务：{name}（{when}）",
    no_tasks="没有定时任务",
    run_now="立即运行",
    inbox="收件箱（{count}）",
    inbox_empty="收件箱",
    question_title="CashCode 有问题要问你",
    review_title="CashCode：有一条记忆待审阅",
)


def labels_for(language: str) -> TrayLabels:
    return ZH_LABELS if language == "zh-CN" else TrayLabels()


def short_title(title: str, untitled: str) -> str:
    text = " ".join(title.split()) or untitled
    return text if len(text) <= TITLE_LIMIT else text[: TITLE_LIMIT - 1] + "…"


class TrayHost(Protocol):
    """A tray icon. `available`/`reason` are known after `start()`; the rest is thread-safe."""

    @property
    def available(self) -> bool: ...

    @property
    def reason(self) -> str | None: ...

    @property
    def can_notify(self) -> bool: ...

    def start(self) -> None: ...
    def set_recent(self, chats: Sequence[RecentChat]) -> None: ...
    def set_next_task(self, task: NextTask | None) -> None: ...
    def set_inbox(self, state: InboxState) -> None: ...
    # A click on the notification opens `item_id` in the Inbox, else the chat `chat_id`.
    def notify(self, title: str, body: str, chat_id: str | None, item_id: str | None = None) -> None: ...
    def stop(self) -> None: ...
