"""kill -9 at random moments while settings are saved and turns are stored: afterwards the
stores open cleanly, no completed turn is lost and no half turn exists. Bounded: a few kills."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from app.settings.user_settings import SettingsStore
from tests.cli.conftest import VALID_KEY

REPO = Path(__file__).resolve().parents[2]
KILLS = 3


@pytest.fixture
def fake_llm() -> Any:
    from app.testing.fake_llm import FakeLLMServer

    with FakeLLMServer(valid_keys={VALID_KEY}) as server:
        yield server


class Worker:
    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.security.crash_worker", *args],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def wait_for_progress(self, count: int, limit: float = 60.0) -> None:
        deadline = time.monotonic() + limit
        while len(self.lines) < count and time.monotonic() < deadline and self.proc.poll() is None:
            time.sleep(0.01)
        assert len(self.lines) >= count, f"worker made no progress (exit {self.proc.poll()})"

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self._reader.join(timeout=10)


def test_settings_survive_kill_9_while_saving(tmp_path: Path) -> None:
    rng = random.Random(7)
    config = tmp_path / "config"
    for round_no in range(KILLS):
        worker = Worker("settings", str(config))
        worker.wait_for_progress(1)
        time.sleep(rng.uniform(0.0, 0.15))  # a random moment inside the save loop
        worker.kill()
        loaded = SettingsStore(config / "settings.json").load()  # never damaged, never partial
        assert 1 <= loaded.max_iterations <= 200, round_no
        assert loaded.exec_env == [f"NAME_{j}" for j in range(len(loaded.exec_env))]


def test_turns_survive_kill_9_mid_turn(tmp_path: Path, fake_llm: Any) -> None:
    rng = random.Random(11)
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    answer = {"text": "the answer, in several chunks", "chunk_size": 3, "delay_s": 0.002}
    fake_llm.script(*[read, answer] * 400)
    completed: list[str] = []
    for _ in range(KILLS):
        worker = Worker("turns", str(tmp_path), fake_llm.openai_base_url, VALID_KEY)
        worker.wait_for_progress(1)
        time.sleep(rng.uniform(0.0, 0.3))
        worker.kill()
        completed += [line.split()[1] for line in worker.lines if line.startswith("DONE ")]
    db = sqlite3.connect(tmp_path / "data" / "cashcode.sqlite3")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        sql = "SELECT turn_id, role, tool_calls FROM messages ORDER BY chat_id, cursor"
        rows = db.execute(sql).fetchall()
    finally:
        db.close()
    turns: dict[str, list[tuple[str, str | None]]] = {}
    for turn_id, role, tool_calls in rows:
        turns.setdefault(turn_id, []).append((role, tool_calls))
    assert set(completed) <= set(turns)  # 0 lost completed turns
    for turn_id, messages in turns.items():  # 0 half turns: user … a final assistant answer
        roles = [r for r, _ in messages]
        assert roles[0] == "user" and roles[-1] == "assistant", (turn_id, roles)
        assert messages[-1][1] in (None, "", "[]"), turn_id  # the last answer asks for no tools
        asked = sum(len(json.loads(c or "[]")) for r, c in messages if r == "assistant")
        assert asked == roles.count("tool"), (turn_id, roles)  # every tool call has its result
