"""Acceptance (issue 24 item 1): `cashcode import` killed with SIGKILL at random (seeded) points,
20 times, then run once more: every chat is complete, none partial, and the last report names
each chat as finished. The source is written by the real cdy-agent 0.1.5."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.conftest import base_env
from tests.importer.test_import_cdy import cdy_agent_package  # noqa: F401  (the fixture)

BULK_WRITER = Path(__file__).with_name("cdy_bulk_writer.py")
SESSIONS, TURNS, KILLS = 30, 10, 20
RUN_LIMIT_S = 120  # a hang bound for one run, not a measurement


def _stored(db_path: Path) -> int:
    """Messages stored so far (read while the importer writes; WAL readers never block it)."""
    if not db_path.exists():
        return 0
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=0.05)
        try:
            return int(db.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:  # not created yet, or locked for a moment
        return -1


def _kill_after(proc: subprocess.Popen[str], db_path: Path, messages: int) -> bool:
    """SIGKILL once at least `messages` messages are stored; False if the run ended first."""
    deadline = time.monotonic() + RUN_LIMIT_S
    while proc.poll() is None and time.monotonic() < deadline:
        if _stored(db_path) >= messages:
            proc.send_signal(signal.SIGKILL)
            return True
        time.sleep(0.001)
    if proc.poll() is None:
        proc.kill()
        raise AssertionError("an import run did not end within the bound")
    return False


def _import(ws: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "import", str(ws), "--yes"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def test_imports_killed_at_random_points_finish_whole_chats(
    tmp_path: Path,
    cdy_agent_package: Path,  # noqa: F811
) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    written = subprocess.run(
        [sys.executable, str(BULK_WRITER), str(ws), str(SESSIONS), str(TURNS)],
        env={**os.environ, "PYTHONPATH": str(cdy_agent_package)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert written.returncode == 0, written.stderr
    sessions: dict[str, int] = json.loads(written.stdout)
    env = base_env(tmp_path)
    rng = random.Random(24)
    db_path = tmp_path / "data" / "cashcode.sqlite3"
    total = sum(sessions.values())
    killed = 0
    for _ in range(KILLS):
        # A random point of the work still to do, counted in stored messages: the kill lands
        # wherever the importer is then (inside a chat, between items, before a record).
        done = max(_stored(db_path), 0)
        proc = _import(ws, env)
        if done < total and _kill_after(proc, db_path, done + rng.randint(1, total - done)):
            killed += 1
        proc.communicate(timeout=RUN_LIMIT_S)
    final = _import(ws, env)
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0, err
    assert killed > 0, "no run was killed: the delays never reached the import"
    db = sqlite3.connect(tmp_path / "data" / "cashcode.sqlite3")
    try:
        counts = dict(db.execute("SELECT chat_id, COUNT(*) FROM messages GROUP BY chat_id").fetchall())
        chats = {r[0] for r in db.execute("SELECT id FROM chats").fetchall()}
    finally:
        db.close()
    assert chats == set(sessions), "every session became exactly one chat"
    partial = {sid: counts.get(sid, 0) for sid, n in sessions.items() if counts.get(sid, 0) != n}
    assert partial == {}, f"partial chats after the re-run: {partial}"
    chat_lines = [line for line in out.splitlines() if "] chat: " in line]
    assert len(chat_lines) == SESSIONS, out
    assert all("[imported]" in line or "[already imported]" in line for line in chat_lines), out
