"""The tray's Inbox (issue 35) over the real app's events: turns against the scripted LLM ask
for approvals, the real Inbox records them, and Presence shows "Inbox (N)" with the oldest item,
notifies once per item added while its window is hidden or unfocused, opens the main window on
an item, and labels the Quick Ask window's items. Stand-ins only for the GUI: the windows'
operations and the tray icon (the real ones: tests/e2e/test_desktop_presence.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.contracts.events import InboxChanged
from app.desktop.presence import Presence
from app.desktop.tray.base import InboxState
from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, add_provider, fake_llm, make_app, ok, paths, secrets, send, workspace
from tests.desktop.test_shell import FakeTray, drain, parts

__all__ = ["fake_llm", "make_app", "parts", "paths", "secrets", "workspace"]


def write(name: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write_file", "arguments": {"path": name, "content": name}}]}


async def settle(shell: Any, tray: FakeTray, want: InboxState) -> None:
    """Wait (bounded) until the tray shows `want`; the actions thread calls the app on this loop,
    so the waiting happens off it."""
    async with asyncio.timeout(20):
        while True:
            await asyncio.to_thread(drain, shell)
            if tray.inbox == want:
                return
            await asyncio.sleep(0.02)


async def test_the_tray_counts_inbox_items_opens_the_oldest_and_notifies_once_each(
    make_app: AppMaker, fake_llm: Any, parts: Any, tmp_path: Path, workspace: Path
) -> None:
    ops, main, _quick, shell = parts
    app, events = await make_app()
    provider = await add_provider(app, fake_llm, "chat_completions")
    shell.attach_app(app, asyncio.get_running_loop())
    presence = Presence(shell, AppPaths(tmp_path, tmp_path, tmp_path, tmp_path), {})
    tray = FakeTray()
    presence.tray = tray
    presence.attach_app(app)
    await settle(shell, tray, InboxState(0, None))

    # The main window is hidden: a turn's approval is announced, once, and counted.
    fake_llm.script(write("a.txt"), write("b.txt"), {"text": "a done"}, {"text": "b done"})
    first = await ok(app, "chats.create", {"title": "Report chat"})
    turn_a = await send(app, first["id"], "write a", provider)
    asked_a = await _item_of(app, turn_a)
    item_a = asked_a["id"]
    await settle(shell, tray, InboxState(1, item_a))
    assert tray.notes == [("CashCode needs your approval", f"Report chat: {asked_a['title']}", first["id"])]
    assert tray.items == [item_a]
    app.bus.publish(InboxChanged(pending=1, item_id=item_a, status="pending"))  # told again
    await asyncio.to_thread(drain, shell)
    assert len(tray.notes) == 1  # at most one notification per item

    # A second item while the main window shows and has the focus: counted, not announced.
    shell.submit(lambda: ops.focus(main.window))
    second = await ok(app, "chats.create", {"title": "Budget chat"})
    turn_b = await send(app, second["id"], "write b", provider)
    item_b = (await _item_of(app, turn_b))["id"]
    await settle(shell, tray, InboxState(2, item_a))  # the oldest stays first
    assert len(tray.notes) == 1

    # The menu's "Inbox (2)" entry opens the main window on the oldest item.
    shell.show_inbox(tray.inbox.oldest_id)  # what the entry calls (TrayActions.open_inbox)
    await asyncio.to_thread(drain, shell)
    opened = {"type": "desktop_command", "action": "open_inbox", "open_item_id": item_a}
    assert main.pusher.events[-1] == opened
    assert ops.log[-1] == ("focus", "main")

    # Answered (from the CLI here): the count follows; the next one is the oldest now.
    await ok(app, "inbox.answer", {"id": item_a, "decision": "once", "via": "cli"})
    await settle(shell, tray, InboxState(1, item_b))
    await ok(app, "inbox.answer", {"id": item_b, "decision": "deny"})
    await settle(shell, tray, InboxState(0, None))
    await events.turn_end(turn_a)
    await events.turn_end(turn_b)
    assert (workspace / "a.txt").read_text() == "a.txt" and not (workspace / "b.txt").exists()
    assert len(tray.notes) == 1


async def test_items_waiting_at_start_are_counted_not_announced_and_quick_ask_labels_its_own(
    make_app: AppMaker, fake_llm: Any, parts: Any, tmp_path: Path
) -> None:
    ops, _main, quick, shell = parts
    app, events = await make_app()
    provider = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(write("early.txt"), write("quick.txt"), {"text": "ok"}, {"text": "ok"})
    early = await ok(app, "chats.create", {"title": "Before the tray"})
    item_early = (await _item_of(app, await send(app, early["id"], "write", provider)))["id"]

    shell.attach_app(app, asyncio.get_running_loop())
    presence = Presence(shell, AppPaths(tmp_path, tmp_path, tmp_path, tmp_path), {})
    tray = FakeTray()
    presence.tray = tray
    presence.attach_app(app)
    await settle(shell, tray, InboxState(1, item_early))
    assert tray.notes == []  # it waited before: counted, never announced

    # The Quick Ask page reports its chat; that chat's items say Quick Ask asks. Its window is
    # hidden, so the item is announced (the main window's focus does not count for it).
    shell.submit(lambda: ops.focus(shell.main.window))
    chat = await ok(app, "chats.create", {"title": "Quick question"})
    await ok(app, "desktop.quick_chat", {"chat_id": chat["id"]})
    turn = await send(app, chat["id"], "write quick", provider)
    item_quick = (await _item_of(app, turn))["id"]
    await settle(shell, tray, InboxState(2, item_early))
    listed = {i["id"]: i for i in (await ok(app, "inbox.list"))["items"]}
    assert listed[item_quick]["origin"] == "quick_ask"
    assert listed[item_early]["origin"] == "chat"
    assert tray.items == [item_quick] and tray.notes[0][2] == chat["id"]
    assert quick.window.uid not in ops.visible
    for item in (item_early, item_quick):
        await ok(app, "inbox.answer", {"id": item, "decision": "deny"})
    await settle(shell, tray, InboxState(0, None))
    await events.turn_end(turn)


async def _item_of(app: Any, turn_id: str) -> dict[str, Any]:
    """The Inbox item a turn's approval became (bounded wait)."""
    async with asyncio.timeout(20):
        while True:
            items = (await ok(app, "inbox.list"))["items"]
            found = [i for i in items if i["turn_id"] == turn_id]
            if found:
                return dict(found[0])
            await asyncio.sleep(0.02)


def test_the_inbox_entry_says_how_many_wait_in_the_settings_language() -> None:
    from app.desktop.tray.base import labels_for

    assert [labels_for("en").inbox_entry(n) for n in (0, 1, 3)] == ["Inbox", "Inbox (1)", "Inbox (3)"]
    assert labels_for("zh-CN").inbox_entry(3) == "收件箱（3）"
    assert labels_for("zh-CN").inbox_entry(0) == "收件箱"
