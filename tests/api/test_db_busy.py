"""Issue 24 item 2: another process holding the database never stalls the app. A Stop answers
at once, reads answer, and a write says "the database is busy" after a short wait."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from app.contracts.events import DatabaseStatus, TurnFailed
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
    for pipe in (holder.stdin, holder.stdout):
        if pipe is not None:
            pipe.close()


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


class _LoopWatch:
    """The longest time the event loop went without running this ticker: a stalled loop (a
    handler blocking in SQLite) shows as one long gap."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> _LoopWatch:
        async def tick() -> None:
            last = time.monotonic()
            while True:
                await asyncio.sleep(0.01)
                now = time.monotonic()
                self.longest = max(self.longest, now - last)
                last = now

        self._task = asyncio.get_running_loop().create_task(tick())
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        await asyncio.sleep(0.05)  # the next tick records a stall that just ended
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


STALL_S = 2.0  # a hang bound: ten writes each blocking the loop for its short wait take 5 s


async def test_writes_waiting_for_a_locked_database_never_block_the_loop(
    make_app: AppMaker, paths: AppPaths
) -> None:
    app, events = await make_app()
    chats = [(await ok(app, "chats.create"))["id"] for _ in range(10)]
    holder = _hold(paths.db_path)
    try:
        async with _LoopWatch() as watch:
            renamed = await asyncio.gather(
                *(app.invoke("chats.rename", {"chat_id": c, "title": "Later"}) for c in chats)
            )
        assert watch.longest < STALL_S, f"the loop stalled for {watch.longest:.1f} s"
        assert all(not r["ok"] and r["error"]["code"] == "database_busy" for r in renamed), renamed
        await events.until(lambda: [e.busy for e in events.of(DatabaseStatus)] == [True], timeout_s=BOUND_S)
    finally:
        _release(holder)
    # The lane probes the lock and says when the database works again.
    told = lambda: [e.busy for e in events.of(DatabaseStatus)]  # noqa: E731
    await events.until(lambda: told() == [True, False], timeout_s=BOUND_S)
    listed = await ok(app, "chats.list", {})
    assert {c["title"] for c in listed["chats"]} == {""}, "a busy write changed nothing"


async def test_a_long_write_of_our_own_never_holds_up_reads(make_app: AppMaker) -> None:
    """A transaction of one of our threads (an import, an index run) holds the writer; the
    routes' reads use their own connections and answer at once."""
    app, _ = await make_app()
    chat = await ok(app, "chats.create", {"title": "Kept"})
    db = app.ctx.db
    entered, leave = threading.Event(), threading.Event()

    def long_write() -> None:
        with db.transaction() as conn:
            conn.execute("UPDATE chats SET title = 'Being changed' WHERE id = ?", (chat["id"],))
            entered.set()
            leave.wait(30)

    writer = threading.Thread(target=long_write)
    writer.start()
    try:
        assert entered.wait(10)
        listed = await _answer(app, "chats.list", {})
        assert listed["ok"], listed
        assert [c["title"] for c in listed["data"]["chats"]] == ["Kept"]  # the last commit
        got = await _answer(app, "chats.get", {"chat_id": chat["id"]})
        assert got["ok"] and got["data"]["chat"]["title"] == "Kept", got
    finally:
        leave.set()
        writer.join(10)
    assert [c["title"] for c in (await ok(app, "chats.list", {}))["chats"]] == ["Being changed"]


async def test_an_answer_finished_while_the_database_is_locked_is_stored_once_it_is_free(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    """Nothing lost: the answer waits (the UI says the database is busy) and is stored when the
    other program lets go, instead of failing after the short wait."""
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "stored later", "chunk_size": 4, "delay_s": 0.05})
    # Titled: the first busy write is then the answer's (an untitled chat's title is written
    # when the turn starts).
    chat = await ok(app, "chats.create", {"title": "Locked"})
    holder = _hold(paths.db_path)
    try:
        turn = await send(app, chat["id"], "answer while it is locked", pid)
        await events.until(lambda: any(e.busy for e in events.of(DatabaseStatus)), timeout_s=BOUND_S * 2)
        assert "turn_done" not in events.types(turn) and "turn_failed" not in events.types(turn)
        listed = await _answer(app, "chats.list", {})  # reads still answer meanwhile
        assert listed["ok"] and listed["data"]["chats"][0]["running"] is True
    finally:
        _release(holder)
    end = await events.turn_end(turn, timeout_s=BOUND_S * 2)
    assert end.type == "turn_done", end
    detail = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert [m["content"] for m in detail["messages"]] == ["answer while it is locked", "stored later"]


async def test_stop_answers_at_once_while_a_finished_answer_waits_for_the_database(
    make_app: AppMaker, fake_llm: Any, paths: AppPaths
) -> None:
    app, events = await make_app()
    pid = await add_provider(app, fake_llm, "chat_completions")
    fake_llm.script({"text": "never stored", "chunk_size": 4, "delay_s": 0.05})
    chat = await ok(app, "chats.create", {"title": "Locked"})  # the first busy write: the answer
    holder = _hold(paths.db_path)
    try:
        turn = await send(app, chat["id"], "stop it", pid)
        await events.until(lambda: any(e.busy for e in events.of(DatabaseStatus)), timeout_s=BOUND_S * 2)
        cancelled = await _answer(app, "chat.cancel", {"chat_id": chat["id"]})
        assert cancelled["ok"], cancelled
        end = await events.turn_end(turn, timeout_s=BOUND_S)
        # The answer could not be stored: said so, and the turn can be retried.
        assert isinstance(end, TurnFailed) and end.error.code == "database_busy", end
    finally:
        _release(holder)
    assert (await ok(app, "chats.get", {"chat_id": chat["id"]}))["messages"] == []
    fake_llm.script({"text": "stored now"})
    retried = await ok(app, "chat.retry", {"chat_id": chat["id"]})
    assert (await events.turn_end(retried["turn_id"])).type == "turn_done"
    detail = await ok(app, "chats.get", {"chat_id": chat["id"]})
    assert [m["content"] for m in detail["messages"]] == ["stop it", "stored now"]


async def test_knowledge_reindex_answers_database_busy_at_once(
    make_app: AppMaker, paths: AppPaths, tmp_path: Path
) -> None:
    """Issue 33.10: it waited SQLite's full 10 s busy timeout (its run's first write ran on a
    worker thread, outside the route bound of decision 183)."""
    app, _events = await make_app()
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nsome words\n", encoding="utf-8")
    await ok(app, "knowledge.add", {"path": str(folder), "name": "Notes"})
    holder = _hold(paths.db_path)
    try:
        busy = await _answer(app, "knowledge.reindex", {"name": "Notes"})
        assert not busy["ok"] and busy["error"]["code"] == "database_busy", busy
    finally:
        _release(holder)
    listed = await ok(app, "knowledge.list")
    assert [(b["name"], b["pending"]) for b in listed["bases"]] == [("Notes", False)]  # nothing changed
    again = await ok(app, "knowledge.reindex", {"name": "Notes"})
    assert again["runs"][0]["indexed"] == 1
