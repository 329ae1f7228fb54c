"""After a restart, the questions of checkpointed turns are Inbox items again (issue 35 item 3).

Each question a checkpoint waits on becomes a pending, `resumable` item owned by this process
(app/store/inbox_restore.py), so its answer — from the chat, the Inbox, the API or another
process's `cashcode inbox` — continues the turn here (InboxService → ResumeService.go_on). A
question that was answered but whose turn had not gone on yet (the app ended in between, or the
answer came from another process while nothing could continue it) goes on with that answer. A
checkpoint that does not read is listed with the warning `resume_unreadable`; answering it gives
a clear error and changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from app.api.inbox import USER_PERMISSIONS, InboxService
from app.api.resume import Restored, ResumeService
from app.contracts.inbox import InboxItem
from app.core.approvals import Answer
from app.store.db import Database
from app.store.inbox import InboxRow, InboxStore
from app.store.inbox_restore import restore_items
from app.store.lane import StoreLane
from app.store.timeutil import utc_now_iso

_log = logging.getLogger(__name__)
RESUME_UNREADABLE = "resume_unreadable"  # warning code: the saved turn cannot be read
ANSWERS: tuple[Answer, ...] = ("deny", "once", "always")


async def relist(
    resume: ResumeService,
    inbox: InboxService,
    *,
    db: Database,
    lane: StoreLane,
    chat_title: Callable[[str], str | None],
) -> list[InboxItem]:
    """List the restored questions again; returns the items now pending."""
    restored = await resume.restored()
    if not restored:
        return []
    store = InboxStore(db)

    def read() -> tuple[dict[str, InboxRow], dict[str, str | None]]:
        rows = {r.approval_id: row for r in restored if (row := store.get(r.approval_id)) is not None}
        titles = {r.stored.chat_id: chat_title(r.stored.chat_id) for r in restored}
        return rows, titles

    rows, titles = await lane.read(read)
    pending: list[InboxItem] = []
    answered: list[tuple[str, Answer]] = []
    for r in restored:
        row = rows.get(r.approval_id)
        if row is not None and row.item.status == "answered" and row.item.answered_by is not None:
            answer = next((a for a in ANSWERS if a == row.item.answer), None)
            if answer is not None and r.wait is not None:
                answered.append((r.approval_id, answer))
                continue
        item = row.item if row is not None else _item(r, titles.get(r.stored.chat_id))
        if r.wait is None and RESUME_UNREADABLE not in item.warnings:
            item = item.model_copy(update={"warnings": [*item.warnings, RESUME_UNREADABLE]})
        again = {"status": "pending", "answer": None, "answered_by": None, "resumable": True}
        pending.append(item.model_copy(update=again))
    pid, start = inbox.owner
    await lane.write(lambda: restore_items(db, pending, owner_pid=pid, owner_start=start))
    inbox.adopt(pending)
    if pending:
        _log.info("%d question(s) of turns saved before the restart are in the Inbox again", len(pending))
        await inbox.changed(pending[-1].id, "pending")
    for approval_id, answer in answered:
        inbox.forget(await resume.go_on(approval_id, answer))
    return pending


def _item(r: Restored, chat_title: str | None) -> InboxItem:
    """The item as the question was first listed (its Inbox row was lost or never written)."""
    cp, wait = r.stored.checkpoint, r.wait
    task_id = cp.task_id if cp is not None else r.stored.task_id
    who = (cp.asker if cp is not None else None) or chat_title or ("Task" if task_id else "Chat")
    if wait is None:
        return InboxItem(
            id=r.approval_id, kind="approval", chat_id=r.stored.chat_id, turn_id=r.stored.turn_id,
            task_id=task_id, who=who, origin="task" if task_id else "chat", created_at=utc_now_iso(),
        )  # fmt: skip
    return InboxItem(
        id=r.approval_id, kind="approval", chat_id=r.stored.chat_id, turn_id=r.stored.turn_id,
        task_id=task_id, who=who, origin="task" if task_id else "chat", tool=wait.tool, title=wait.title,
        detail=wait.detail, argv=wait.argv, summary=wait.summary,
        warnings=[USER_PERMISSIONS] if wait.argv else [], can_always=wait.grant is not None,
        created_at=wait.asked_at,
    )  # fmt: skip
