"""TaskStore: the `tasks` and `task_runs` tables. Every write is one transaction; firing a slot
(advance the schedule + start or skip a run) is one, so a crash never fires a slot twice."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from datetime import datetime

from app.contracts.errors import say
from app.store.db import Database
from app.store.errors import Conflict, NotFound
from app.store.ids import new_id
from app.tasks.model import RunRecord, RunStatus, TaskDraft, TaskRecord, Trigger
from app.tasks.times import from_db, maybe, to_db

_log = logging.getLogger(__name__)
RECENT_RUNS = 200
INTERRUPTED = "interrupted: the app stopped during the run (nothing of the turn was kept)"


class TaskStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- tasks ---------------------------------------------------------------------------------

    def add(
        self, draft: TaskDraft, *, time_zone: str, anchor: datetime, next_run: datetime | None, now: datetime
    ) -> TaskRecord:
        task_id = new_id()
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO tasks (id, name, draft, enabled, time_zone, anchor, next_run, created_at,"
                    " updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    (task_id, draft.name, draft.model_dump_json(), int(draft.enabled), time_zone,
                     to_db(anchor), _opt(next_run), to_db(now), to_db(now)),
                )  # fmt: skip
        except sqlite3.IntegrityError:
            raise Conflict(say("task.exists", name=draft.name)) from None
        return self.get(task_id)

    def update(
        self,
        task_id: str,
        draft: TaskDraft,
        *,
        anchor: datetime,
        next_run: datetime | None,
        now: datetime,
        time_zone: str | None = None,  # None: keep the task's zone
    ) -> TaskRecord:
        try:
            with self._db.transaction() as conn:
                changed = conn.execute(
                    "UPDATE tasks SET name = ?, draft = ?, enabled = ?, anchor = ?, next_run = ?,"
                    " updated_at = ?, time_zone = COALESCE(?, time_zone) WHERE id = ?",
                    (draft.name, draft.model_dump_json(), int(draft.enabled), to_db(anchor),
                     _opt(next_run), to_db(now), time_zone, task_id),
                ).rowcount  # fmt: skip
        except sqlite3.IntegrityError:
            raise Conflict(say("task.exists", name=draft.name)) from None
        if not changed:
            raise NotFound(say("task.not_found", id=task_id))
        return self.get(task_id)

    def get(self, task_id: str) -> TaskRecord:
        rows = self._db.query(_TASK_SELECT + " WHERE t.id = ?", (task_id,))
        if not rows:
            raise NotFound(say("task.not_found", id=task_id[:64]))
        return _task(rows[0])

    def by_name(self, name: str) -> TaskRecord:
        rows = self._db.query(_TASK_SELECT + " WHERE t.name = ?", (name,))
        if not rows:
            raise NotFound(say("task.no_such_name", name=name[:80]))
        return _task(rows[0])

    def all(self) -> list[TaskRecord]:
        return _tasks(self._db.query(_TASK_SELECT + " ORDER BY t.name"))

    def remove(self, task_id: str) -> None:
        with self._db.transaction() as conn:
            if not conn.execute("DELETE FROM tasks WHERE id = ?", (task_id,)).rowcount:
                raise NotFound(say("task.not_found", id=task_id))

    def set_chat(self, task_id: str, chat_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("UPDATE tasks SET chat_id = ? WHERE id = ?", (chat_id, task_id))

    def due(self, now: datetime) -> list[TaskRecord]:
        """Enabled tasks whose next run is now or earlier (one indexed range read)."""
        rows = self._db.query(
            _TASK_SELECT + " WHERE t.enabled = 1 AND t.next_run IS NOT NULL AND t.next_run <= ?"
            " ORDER BY t.next_run",
            (to_db(now),),
        )
        return _tasks(rows)

    def earliest_next(self) -> datetime | None:
        rows = self._db.query("SELECT MIN(next_run) FROM tasks WHERE enabled = 1 AND next_run IS NOT NULL")
        return maybe(rows[0][0]) if rows else None

    # ---- firing and runs ------------------------------------------------------------------------

    def fire(
        self,
        task_id: str,
        *,
        slot: datetime | None,
        next_run: datetime | None,
        trigger: Trigger,
        now: datetime,
        pid: int,
        start: str | None = None,
        expected_next: datetime | None = None,
    ) -> RunRecord:
        """Advance the schedule past `slot` and start a run; if one is running, record this one
        as skipped instead. `pid` and `start` (its process_start) name the process that owns
        the run. `expected_next`: fire only if the task's next run is still that (another
        process may have fired it first) — otherwise raise Conflict."""
        run_id = new_id()
        with self._db.transaction() as conn:
            if slot is not None:
                cur = conn.execute(
                    "UPDATE tasks SET last_slot = ?, next_run = ? WHERE id = ? AND next_run IS ?",
                    (to_db(slot), _opt(next_run), task_id, _opt(expected_next)),
                )
                if not cur.rowcount:
                    raise Conflict("this slot was already fired")
            busy = conn.execute(
                "SELECT waiting_approval FROM task_runs WHERE task_id = ? AND status = 'running'", (task_id,)
            ).fetchone()
            status: RunStatus = "skipped" if busy else "running"
            # A run waiting in the Inbox holds its task: later slots are skipped, not piled up.
            note = None
            if busy:
                note = (
                    "the previous run was still waiting for an answer"
                    if busy[0]
                    else "the previous run was still running"
                )
            conn.execute(
                "INSERT INTO task_runs (id, task_id, status, trigger, slot, started_at, finished_at,"
                " duration_ms, error, owner_pid, owner_start) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (run_id, task_id, status, trigger, _opt(slot), to_db(now),
                 to_db(now) if busy else None, 0.0 if busy else None,
                 note, pid, start),
            )  # fmt: skip
        return self.run(run_id)

    def record_missed(
        self,
        task_id: str,
        *,
        slot: datetime,
        count: int,
        next_run: datetime | None,
        now: datetime,
        expected_next: datetime | None = None,
    ) -> RunRecord:
        """Skip slots missed while the app was closed: one `missed` row, schedule advanced
        (Conflict when the task's next run is no longer `expected_next`, if given)."""
        run_id = new_id()
        note = "missed while the app was not running" + (f" ({count} runs)" if count > 1 else "")
        with self._db.transaction() as conn:
            sql = "UPDATE tasks SET last_slot = ?, next_run = ? WHERE id = ?"
            params = [to_db(slot), _opt(next_run), task_id]
            if expected_next is not None:
                sql, params = sql + " AND next_run IS ?", [*params, to_db(expected_next)]
            cur = conn.execute(sql, params)
            if expected_next is not None and not cur.rowcount:
                raise Conflict("this slot was already handled")
            conn.execute(
                "INSERT INTO task_runs (id, task_id, status, trigger, slot, started_at, finished_at,"
                " duration_ms, error) VALUES (?,?,'missed','missed',?,?,?,0,?)",
                (run_id, task_id, to_db(slot), to_db(now), to_db(now), note),
            )
        return self.run(run_id)

    def set_next(self, task_id: str, next_run: datetime | None) -> None:
        with self._db.transaction() as conn:
            conn.execute("UPDATE tasks SET next_run = ? WHERE id = ?", (_opt(next_run), task_id))

    def started(self, run_id: str, *, chat_id: str, turn_id: str | None) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE task_runs SET chat_id = ?, turn_id = ? WHERE id = ?", (chat_id, turn_id, run_id)
            )

    def waiting(self, run_id: str, waiting: bool) -> None:
        with self._db.transaction() as conn:
            conn.execute("UPDATE task_runs SET waiting_approval = ? WHERE id = ?", (int(waiting), run_id))

    def finish(
        self,
        run_id: str,
        *,
        status: RunStatus,
        now: datetime,
        answer: str | None = None,
        error: str | None = None,
        refused: tuple[str, ...] = (),
    ) -> RunRecord:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE task_runs SET status = ?, finished_at = ?, duration_ms = ?, answer = ?, error = ?,"
                " refused_tools = ?, waiting_approval = 0 WHERE id = ?",
                (
                    status,
                    to_db(now),
                    _duration(conn, run_id, now),
                    answer,
                    error,
                    json.dumps(list(refused)),
                    run_id,
                ),
            )
        return self.run(run_id)

    def run(self, run_id: str) -> RunRecord:
        rows = self._db.query("SELECT * FROM task_runs WHERE id = ?", (run_id,))
        if not rows:
            raise NotFound(say("task.run_not_found", id=run_id[:64]))
        return _run(rows[0])

    def runs(self, task_id: str, limit: int = RECENT_RUNS) -> list[RunRecord]:
        rows = self._db.query(
            "SELECT * FROM task_runs WHERE task_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
            (task_id, limit),
        )
        return [_run(r) for r in rows]

    def fail_orphans(self, alive: Callable[[int, str | None], bool], now: datetime) -> int:
        """Runs left `running` by a process that is gone (crash, kill -9) become failed; also
        when its pid now names another process (`alive(pid, start)` compares start times)."""
        rows = self._db.query("SELECT id, owner_pid, owner_start FROM task_runs WHERE status = 'running'")
        dead = [
            r["id"]
            for r in rows
            if r["owner_pid"] is None or not alive(int(r["owner_pid"]), r["owner_start"])
        ]
        for run_id in dead:
            self.finish(run_id, status="failed", now=now, error=INTERRUPTED)
        return len(dead)


_TASK_SELECT = (
    "SELECT t.*, (SELECT r.status FROM task_runs r WHERE r.task_id = t.id"
    " ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1) AS last_status,"
    " (SELECT MAX(r.started_at) FROM task_runs r WHERE r.task_id = t.id) AS last_run_at FROM tasks t"
)


def _opt(value: datetime | None) -> str | None:
    return to_db(value) if value is not None else None


def _duration(conn: sqlite3.Connection, run_id: str, now: datetime) -> float:
    row = conn.execute("SELECT started_at FROM task_runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFound(say("task.run_not_found", id=run_id))
    return round(max(0.0, (now - from_db(row[0])).total_seconds() * 1000), 1)


def _tasks(rows: list[sqlite3.Row]) -> list[TaskRecord]:
    """The tasks of `rows`; a row that does not read (a damaged draft or date) is skipped with a
    warning naming it, so it never stops the others or the list (issue 33.8)."""
    out = []
    for row in rows:
        try:
            out.append(_task(row))
        except (ValueError, TypeError, KeyError) as exc:  # pydantic's ValidationError is a ValueError
            _log.warning("task %s is damaged and was skipped (%s)", str(row["id"])[:64], type(exc).__name__)
    return out


def _task(row: sqlite3.Row) -> TaskRecord:
    return TaskRecord(
        id=row["id"],
        draft=TaskDraft.model_validate_json(row["draft"]),
        time_zone=row["time_zone"],
        anchor=from_db(row["anchor"]),
        next_run=maybe(row["next_run"]),
        last_slot=maybe(row["last_slot"]),
        chat_id=row["chat_id"],
        created_at=from_db(row["created_at"]),
        last_status=row["last_status"],
        last_run_at=maybe(row["last_run_at"]),
    )


def _run(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=row["id"],
        task_id=row["task_id"],
        status=row["status"],
        trigger=row["trigger"],
        slot=maybe(row["slot"]),
        started_at=from_db(row["started_at"]),
        finished_at=maybe(row["finished_at"]),
        duration_ms=row["duration_ms"],
        chat_id=row["chat_id"],
        turn_id=row["turn_id"],
        answer=row["answer"],
        error=row["error"],
        refused_tools=tuple(json.loads(row["refused_tools"])),
        waiting_approval=bool(row["waiting_approval"]),
    )
