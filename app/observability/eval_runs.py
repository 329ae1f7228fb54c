"""Eval runs started from the UI: one at a time, in the background, progress on the bus, kept
in SQLite for comparison (pass rate per model)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from app.contracts.errors import ApiFailure, said, say
from app.contracts.events import AppEvent
from app.observability import eval_api_models as em
from app.observability.evals import CaseResult, EvalApp, run_case
from app.observability.evals_file import EvalCase, EvalFileError, parse_eval_text
from app.observability.events import EvalProgress
from app.store.db import Database
from app.store.timeutil import utc_now_iso

_log = logging.getLogger(__name__)
_RUN_ID = re.compile(r"^[0-9a-f]{32}$")
_NAME = re.compile(r"^[^/\\\x00-\x1f]{1,200}$")
RECENT_RUNS = 50


class EvalRunStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, run_id: str, file_name: str, model: em.EvalModel, total: int) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO eval_runs (id, file_name, provider_id, model, status, started_at, total)"
                " VALUES (?,?,?,?,'running',?,?)",
                (run_id, file_name, model.provider_id, model.model, utc_now_iso(), total),
            )

    def update(
        self, run_id: str, results: list[CaseResult], *, status: str = "running", error: str | None = None
    ) -> None:
        finished = None if status == "running" else utc_now_iso()
        payload = json.dumps([asdict(r) for r in results], ensure_ascii=False)
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE eval_runs SET results = ?, passed = ?, status = ?, error = ?, finished_at = ?"
                " WHERE id = ?",
                (payload, sum(r.passed for r in results), status, error, finished, run_id),
            )

    def get(self, run_id: str) -> em.EvalRunView | None:
        rows = self._db.query("SELECT * FROM eval_runs WHERE id = ?", (run_id,))
        return _view(rows[0], with_results=True) if rows else None

    def recent(self, limit: int = RECENT_RUNS) -> list[em.EvalRunView]:
        rows = self._db.query("SELECT * FROM eval_runs ORDER BY started_at DESC, id LIMIT ?", (limit,))
        return [_view(r, with_results=False) for r in rows]

    def rates(self) -> list[em.EvalModelRate]:
        rows = self._db.query(
            "SELECT provider_id, model, COUNT(*), SUM(json_array_length(results)), SUM(passed)"
            " FROM eval_runs WHERE status != 'running'"
            " GROUP BY provider_id, model ORDER BY provider_id, model"
        )
        return [
            em.EvalModelRate(
                provider_id=r[0], model=r[1], runs=r[2], cases=r[3] or 0, passed=r[4] or 0,
                pass_rate=(r[4] or 0) / r[3] if r[3] else 0.0,
            )
            for r in rows
        ]  # fmt: skip

    def fail_unfinished(self) -> None:
        """A run cut short by a quit stays readable, marked failed."""
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE eval_runs SET status = 'failed', error = 'interrupted', finished_at = ?"
                " WHERE status = 'running'",
                (utc_now_iso(),),
            )


def _view(row: sqlite3.Row, *, with_results: bool) -> em.EvalRunView:
    results = [em.EvalCaseResultView(**r) for r in json.loads(row["results"])] if with_results else []
    return em.EvalRunView(
        id=row["id"],
        file_name=row["file_name"],
        provider_id=row["provider_id"],
        model=row["model"],
        status=row["status"],
        error=row["error"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        total=row["total"],
        passed=row["passed"],
        results=results,
    )


class EvalRunner:
    """Runs one eval file at a time on the core loop; `attach(app)` gives it the API."""

    def __init__(
        self,
        store: EvalRunStore,
        publish: Callable[[AppEvent], None],
        default_model: Callable[[], em.EvalModel | None],
    ) -> None:
        self._store = store
        self._publish = publish
        self._default_model = default_model
        self._app: EvalApp | None = None
        self._task: asyncio.Task[None] | None = None

    def attach(self, app: EvalApp) -> None:
        self._app = app

    def start(self, req: em.EvalRunStart) -> em.EvalRunView:
        if self._app is None:
            raise ApiFailure("unsupported", say("eval.unsupported"))
        if self._task is not None and not self._task.done():
            raise ApiFailure("busy", say("eval.busy"))
        if not _NAME.fullmatch(req.filename):
            raise ApiFailure("invalid", say("eval.bad_filename"))
        is_json = req.filename.lower().endswith(".json")
        try:
            cases = parse_eval_text(req.content, req.filename, is_json=is_json)
        except EvalFileError as exc:
            raise ApiFailure("invalid", said(exc)) from None
        model = req.model or self._default_model()
        if model is None:
            raise ApiFailure("invalid", say("eval.no_model"))
        run_id = uuid.uuid4().hex
        self._store.create(run_id, req.filename, model, len(cases))
        self._task = asyncio.get_running_loop().create_task(self._run(self._app, run_id, cases, model))
        view = self._store.get(run_id)
        assert view is not None
        return view

    async def _run(self, app: EvalApp, run_id: str, cases: list[EvalCase], model: em.EvalModel) -> None:
        results: list[CaseResult] = []
        ref = {"provider_id": model.provider_id, "model": model.model}
        total = len(cases)
        try:
            for case in cases:
                result = await run_case(app, case, ref)
                results.append(result)
                self._store.update(run_id, results)
                self._progress(run_id, "running", results, total, result)
            self._store.update(run_id, results, status="done")
            self._progress(run_id, "done", results, total, None)
        except asyncio.CancelledError:
            self._store.update(run_id, results, status="failed", error="cancelled")
            raise
        except Exception:  # the run's boundary: record it, tell the UI, keep the app going
            _log.warning("eval run %s failed", run_id, exc_info=True)
            self._store.update(run_id, results, status="failed", error="the run failed unexpectedly")
            self._progress(run_id, "failed", results, total, None)

    def _progress(
        self, run_id: str, status: Any, results: list[CaseResult], total: int, last: CaseResult | None
    ) -> None:
        self._publish(
            EvalProgress(
                run_id=run_id,
                status=status,
                done=len(results),
                total=total,
                passed=sum(r.passed for r in results),
                case=last.name if last else None,
                case_passed=last.passed if last else None,
            )
        )

    def fail_unfinished(self) -> None:
        self._store.fail_unfinished()

    def get(self, run_id: str) -> em.EvalRunView:
        found = self._store.get(run_id) if _RUN_ID.fullmatch(run_id) else None
        if found is None:
            raise ApiFailure("not_found", say("eval.run_not_found", id=run_id[:64]))
        return found

    def runs(self) -> em.EvalRunList:
        return em.EvalRunList(runs=self._store.recent(), by_model=self._store.rates())

    async def aclose(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
