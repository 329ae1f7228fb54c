"""Ctrl-C and kill -9 in the middle of a turn: nothing half-written survives."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from app.api.plugins import open_database
from app.store.chats import ChatRepository
from tests.cli.conftest import VALID_KEY, base_env
from tests.cli.pty_app import terminal_signals

HANG_S = 60  # a signalled process may take this long to end: a hang check, not a speed check

SLOW = {"text": "SLOW " + "tick " * 400, "chunk_size": 5, "delay_s": 0.1}


class OutputWatcher:
    """Reads a pipe in a thread; `wait_for(text)` blocks (bounded) until it has appeared."""

    def __init__(self, pipe: IO[str]) -> None:
        self.text = ""
        self._changed = threading.Condition()
        threading.Thread(target=self._pump, args=(pipe,), daemon=True).start()

    def _pump(self, pipe: IO[str]) -> None:
        for chunk in iter(lambda: pipe.read(1), ""):
            with self._changed:
                self.text += chunk
                self._changed.notify_all()

    def wait_for(self, needle: str, timeout_s: float = 30.0) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: needle in self.text, timeout_s), self.text[-500:]


@pytest.fixture
def fake_llm_process(tmp_path: Path) -> Iterator[str]:
    """The fake server as its own process (scripted from a file)."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "ANSWER ONE"}, {"text": "ANSWER TWO"}, SLOW]))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.testing.fake_llm",
            "--port",
            "0",
            "--print-port",
            "--script",
            str(script),
            "--valid-key",
            VALID_KEY,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("PORT="), line
    yield f"http://127.0.0.1:{int(line.strip().split('=')[1])}/v1"
    proc.terminate()
    proc.wait(timeout=HANG_S)


def _start(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=terminal_signals,
    )


def test_kill_9_mid_turn_keeps_exactly_the_completed_turns(tmp_path: Path, fake_llm_process: str) -> None:
    (tmp_path / "ws").mkdir()
    env = base_env(tmp_path) | {"OPENAI_BASE_URL": fake_llm_process, "OPENAI_API_KEY": VALID_KEY}
    proc = _start(["chat"], env, tmp_path / "ws")
    assert proc.stdin is not None and proc.stdout is not None
    out = OutputWatcher(proc.stdout)
    proc.stdin.write("one\ntwo\nthree\n")
    proc.stdin.flush()
    out.wait_for("SLOW")  # the third turn is streaming now
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=HANG_S)
    assert proc.returncode == -signal.SIGKILL
    chats = ChatRepository(open_database(tmp_path / "data" / "cashcode.sqlite3"))
    [chat] = chats.list()
    history = chats.history(chat.id)
    assert [(m.role, m.content) for m in history] == [
        ("user", "one"),
        ("assistant", "ANSWER ONE"),
        ("user", "two"),
        ("assistant", "ANSWER TWO"),
    ]
    # and a restarted app sees the same
    shown = subprocess.run(
        [sys.executable, "-m", "app", "sessions", "show", chat.id],
        env=env,
        cwd=tmp_path / "ws",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0 and "ANSWER TWO" in shown.stdout and "SLOW" not in shown.stdout


def test_ctrl_c_during_a_turn_stops_it_keeps_the_partial_answer_and_exits_130(
    tmp_path: Path, fake_llm: Any
) -> None:
    (tmp_path / "ws").mkdir()
    fake_llm.script(SLOW)
    env = base_env(tmp_path) | {"OPENAI_BASE_URL": fake_llm.openai_base_url, "OPENAI_API_KEY": VALID_KEY}
    proc = _start(["ask", "talk"], env, tmp_path / "ws")
    assert proc.stdout is not None and proc.stderr is not None
    out = OutputWatcher(proc.stdout)
    out.wait_for("SLOW")
    os.kill(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=HANG_S) == 130
    assert "Traceback" not in proc.stderr.read()
    assert fake_llm.wait_for_client_disconnect(5.0)
    chats = ChatRepository(open_database(tmp_path / "data" / "cashcode.sqlite3"))
    [chat] = chats.list()  # a stopped answer is kept, marked stopped, as in the app
    history = chats.history(chat.id)
    assert [(m.role, m.stopped) for m in history] == [("user", False), ("assistant", True)]
    assert "SLOW" in history[1].content
