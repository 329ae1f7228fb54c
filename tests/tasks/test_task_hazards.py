"""Issue 33.8: a run left `running` whose pid now names another process is failed; one damaged
task row never stops the others or `tasks list`; counting a long stretch of missed runs is
bounded and never holds the event loop (a clock jump stalled the API for 34 s)."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.tasks.model import Cron, TaskDraft, TaskRecord
from app.tasks.planning import MISSED_COUNT_LIMIT, Miss, plan
from app.testing.fake_llm import FakeLLMServer
from tests.cli.conftest import cashcode, env, fake_llm, home
from tests.server.process import isolated_env, serve_process
from tests.tasks.conftest import FakeClock
from tests.tasks.test_scheduler import GRACE, add, make

__all__ = ["env", "fake_llm", "home"]
WAIT_S = 60.0  # hang bounds, not timing assertions


def _db(env: dict[str, str]) -> sqlite3.Connection:
    return sqlite3.connect(Path(env["CASHCODE_DATA_DIR"]) / "cashcode.sqlite3", timeout=10)


def _until(check: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_run_whose_pid_now_names_another_process_is_failed(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    ws = home / "ws"
    added = cashcode("tasks", "add", "slow", "--prompt", "Go", "--every", "1h", "--model", "fake-model",
                     env=env, cwd=ws)  # fmt: skip
    assert added.returncode == 0, added.stderr
    fake_llm.script({"text": "never", "hang_s": 120})
    first = subprocess.Popen([sys.executable, "-m", "app", "tasks", "run", "slow"], env=env, cwd=ws,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip

    def running() -> bool:
        with _db(env) as conn:
            return bool(conn.execute("SELECT 1 FROM task_runs WHERE status = 'running'").fetchone())

    _until(running, "the first run never started")
    assert fake_llm.wait_until(lambda reqs: len(reqs) > 0, timeout=WAIT_S)  # it is in its turn
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=WAIT_S)
    # The pid is reused: another, unrelated process now has the run's owner pid.
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    try:
        with _db(env) as conn:
            conn.execute("UPDATE task_runs SET owner_pid = ? WHERE status = 'running'", (stranger.pid,))
        fake_llm.script({"text": "Done now."})
        again = cashcode("tasks", "run", "slow", env=env, cwd=ws)
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == "Done now."
        history = json.loads(cashcode("tasks", "history", "slow", "--json", env=env, cwd=ws).stdout)
        assert [r["status"] for r in history] == ["ok", "failed"]
        assert history[1]["error"].startswith("interrupted")
    finally:
        stranger.kill()
        stranger.wait()


def test_a_damaged_task_row_is_skipped_with_a_warning(env: dict[str, str], home: Path) -> None:
    ws = home / "ws"
    for name in ("good", "broken"):
        done = cashcode("tasks", "add", name, "--prompt", "p", "--every", "1h", env=env, cwd=ws)
        assert done.returncode == 0, done.stderr
    with _db(env) as conn:
        broken_id = conn.execute("SELECT id FROM tasks WHERE name = 'broken'").fetchone()[0]
        conn.execute("UPDATE tasks SET draft = '{\"name\": 5' WHERE name = 'broken'")
    listed = cashcode("tasks", "list", "--json", env=env, cwd=ws)
    assert listed.returncode == 0, listed.stderr
    assert [t["name"] for t in json.loads(listed.stdout)] == ["good"]
    assert f"task {broken_id} is damaged and was skipped" in listed.stderr


async def test_the_scheduler_fires_the_others_past_a_damaged_row(tmp_path: Path) -> None:
    clock = FakeClock()
    store, runner, scheduler = make(tmp_path, clock)
    good, bad = add(store, clock, seconds=600), add(store, clock, seconds=900)
    with store._db.transaction() as conn:  # damage one row, as a crash or an old build could
        conn.execute("UPDATE tasks SET anchor = 'not a date' WHERE id = ?", (bad.id,))
    clock.advance(seconds=1000)
    fired = scheduler.tick()
    assert [r.task_id for r in fired] == [good.id]
    runner.release.set()
    await scheduler.wait_runs()


def _cron_task(next_run: datetime) -> TaskRecord:
    draft = TaskDraft(name="each minute", prompt="p", schedule=Cron(expr="* * * * *"), missed_policy="skip")
    anchor = datetime(2000, 1, 1, tzinfo=UTC)
    return TaskRecord(
        id="t1", draft=draft, time_zone="Europe/Berlin", anchor=anchor, next_run=next_run,
        last_slot=None, chat_id=None, created_at=anchor, last_status=None, last_run_at=None,
    )  # fmt: skip


@pytest.mark.timeout(60)
def test_counting_years_of_missed_minutes_is_bounded() -> None:
    """The old count called next_after once per missed run (each restarting the cron search):
    over 100 s for this one plan on the test machine."""
    step = plan(_cron_task(datetime(2000, 1, 1, tzinfo=UTC)), datetime(2026, 1, 1, tzinfo=UTC), GRACE)
    assert isinstance(step, Miss) and step.count == MISSED_COUNT_LIMIT
    assert step.slot == datetime(2000, 1, 1, tzinfo=UTC) + timedelta(minutes=MISSED_COUNT_LIMIT - 1)
    assert step.next_run is not None and step.next_run > datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.timeout(300)
def test_serve_answers_while_the_scheduler_counts_a_clock_jump(tmp_path: Path) -> None:
    """A task whose next run is years back (the clock jumped, or the app was closed that long):
    the API answers while the scheduler works it out."""
    env = isolated_env(tmp_path, {"CASHCODE_DREAM": "off", "CASHCODE_TEST_TASKS_POLL_S": "0.5"})
    with FakeLLMServer():
        added = subprocess.run(
            [sys.executable, "-m", "app", "tasks", "add", "each", "--prompt", "p", "--cron", "* * * * *"],
            env=env, capture_output=True, text=True, timeout=WAIT_S,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        with _db(env) as conn:  # skip the missed runs (no model needed) and jump back 26 years
            draft = json.loads(conn.execute("SELECT draft FROM tasks").fetchone()[0])
            conn.execute("UPDATE tasks SET draft = ?, next_run = ?, anchor = ?",
                         (json.dumps({**draft, "missed_policy": "skip"}), "2000-01-01T00:00:00.000000Z",
                          "2000-01-01T00:00:00.000000Z"))  # fmt: skip
        with serve_process(["--no-open", "--port", "0"], env) as served:
            counted = False

            def missed() -> bool:
                with _db(env) as conn:
                    return bool(conn.execute("SELECT 1 FROM task_runs WHERE status = 'missed'").fetchone())

            deadline = time.monotonic() + 2 * WAIT_S
            with httpx2.Client(base_url=served.base_url, trust_env=False, timeout=20) as client:
                while not counted:
                    assert time.monotonic() < deadline, "the missed runs were never recorded"
                    reply = client.post("/api/invoke/settings.get", json={}, headers=served.bearer).json()
                    assert reply["ok"], reply
                    counted = missed()
                    time.sleep(0.2)
    with _db(env) as conn:
        note = conn.execute("SELECT error FROM task_runs WHERE status = 'missed'").fetchone()[0]
    assert f"({MISSED_COUNT_LIMIT} runs)" in note


def test_a_scheduler_reads_its_own_start_time() -> None:
    """The pair (pid, start) the runs record: readable for this process where /proc exists."""
    from app.tasks.scheduler import pid_alive, process_start

    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc: runs are matched by pid alone")
    import os

    mine = process_start(os.getpid())
    assert mine is not None and pid_alive(os.getpid(), mine)
    assert not pid_alive(os.getpid(), str(int(mine) + 1))  # our pid, but not the run's process
