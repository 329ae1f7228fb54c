"""Inbox items of turns checkpointed before a restart (issue 35 item 3): listed again as
"pending" and `resumable`, owned by the process that restored them (app/api/resume.py), and
removed with their checkpoints. Rows of `inbox_items` (app/store/inbox.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from app.contracts.inbox import InboxItem
from app.store.db import Database


def restore_items(
    db: Database, items: Sequence[InboxItem], *, owner_pid: int, owner_start: str | None
) -> None:
    """Each item pending again (whatever became of it when the app ended: a quit cancels the
    questions of its turns), resumable, owned by this process; written in one transaction."""
    with db.transaction() as conn:
        for item in items:
            conn.execute(
                "INSERT INTO inbox_items (id, kind, chat_id, item_json, form_json, created_at, status,"
                " owner_pid, owner_start, resumable) VALUES (?,?,?,?,?,?,'pending',?,?,1)"
                " ON CONFLICT (id) DO UPDATE SET item_json = excluded.item_json, status = 'pending',"
                " answer = NULL, answer_json = '{}', answered_by = NULL, answered_at = NULL,"
                " owner_pid = excluded.owner_pid, owner_start = excluded.owner_start, resumable = 1",
                (
                    item.id, item.kind, item.chat_id, item.model_dump_json(), json.dumps({}),
                    item.created_at, owner_pid, owner_start,
                ),
            )  # fmt: skip
