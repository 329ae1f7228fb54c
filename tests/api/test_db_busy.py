"""Issue 24 item 2: another process holding the database never stalls the app. A Stop answers
at once, reads answer, and a write says "the database is busy" after a short wait."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from app.settings.paths import AppPaths
from tests.api.conftest import AppMaker, add_provider, ok, send

SLOW = {"text": "slow " * 200, "chunk_size": 5, "delay_s": 0.2}
BOUND_S = 5.0  # a hang bound, far above the short wait and far below the 10 s busy timeout

HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN EXCLUSIVE")
print("LOCKED", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


def _hold(db: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "LOCKED"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.wait(timeout=30)


async def _answer(app: Any, route: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The route's envelope, checked against a hang bound. The clock, not `wait_for`, does the
    checking: a handler blocking the event loop would also block the timeout meant to catch it."""
    started = time.monotonic()
    envelope: dict[str, Any] = await asyncio.wait_for(app.invoke(route, payload), BOUND_S)
    assert time.monotonic() - started < BOUND_S, f"{route} stalled the event loop"
    return envelope


async def test_a_locked_database_never_stalls_stop_reads_or_writes(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script(SLOW)
    chat = await ok(app, "chats.create")
    turn = await send(app, chat["id"], "talk slowly", pid)
    await events.until(lambda: "delta" in events.types(turn))
    holder = _hold(paths.db_path)
    try:
        cancelled = await _answer(app, "chat.cancel", {"chat_id": chat["id"]})
        assert cancelled["ok"], cancelled
        await events.until(lambda: "turn_cancelled" in events.types(turn), timeout_s=BOUND_S)
        listed = await _answer(app, "chats.list", {})
        assert listed["ok"] and [c["id"] for c in listed["data"]["chats"]] == [chat["id"]]
        renamed = await _answer(app, "chats.rename", {"chat_id": chat["id"], "title": "Later"})
        assert not renamed["ok"] and renamed["error"]["code"] == "database_busy"
        assert "database is busy" in renamed["error"]["message"]
    finally:
        _release(holder)
    assert (await ok(app, "chats.rename", {"chat_id": chat["id"], "title": "Later"}))["title"] == "Later"
