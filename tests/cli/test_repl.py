"""`cashcode chat` behaves like a REPL in a terminal (issue 25 item 8): Ctrl-C stops an answer and
the prompt comes back, /help is answered locally, the banner names provider and model, and a
second Ctrl-C at the prompt leaves with the `--resume` line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.api.plugins import open_database
from app.store.chats import ChatRepository
from tests.cli.conftest import base_env, cashcode
from tests.cli.test_interrupts import SLOW, OutputWatcher


def test_ctrl_c_stops_the_answer_help_is_local_and_two_ctrl_c_leave(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(SLOW, {"text": "SECOND ANSWER"})
    primary, secondary = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "chat"],
        env=env,
        cwd=home / "ws",
        stdin=secondary,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(secondary)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = OutputWatcher(proc.stdout), OutputWatcher(proc.stderr)
    try:
        err.wait_for("fake-model")  # the banner names provider and model
        assert "127.0.0.1" in err.text and "/help" in err.text
        os.write(primary, b"talk\n")
        out.wait_for("SLOW")
        os.kill(proc.pid, signal.SIGINT)  # stop this answer, not the program
        assert fake_llm.wait_for_client_disconnect(10.0)
        out.wait_for("> ")
        os.write(primary, b"/help\n")
        err.wait_for("never sent to the model")
        os.write(primary, b"again\n")
        out.wait_for("SECOND ANSWER")
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGINT)  # at the prompt: a hint first
        err.wait_for("Ctrl-C again")
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(primary)
    [chat] = ChatRepository(open_database(home / "data" / "cashcode.sqlite3")).list()
    err.wait_for(f"cashcode chat --resume {chat.id}")
    proc.stdout.close()
    proc.stderr.close()
    assert "Traceback" not in err.text
    sent = [m["content"] for m in fake_llm.model_requests()[-1].body["messages"] if m["role"] == "user"]
    assert sent == ["talk", "again"]  # /help never reached the model; the stopped turn is context
    history = ChatRepository(open_database(home / "data" / "cashcode.sqlite3")).history(chat.id)
    assert [(m.role, m.stopped) for m in history] == [
        ("user", False),
        ("assistant", True),
        ("user", False),
        ("assistant", False),
    ]


def test_mcp_tools_on_a_program_that_is_not_an_mcp_server_prints_one_line(home: Path) -> None:
    env = base_env(home)
    script = "print('hello, I am not an MCP server'); print('nor am I JSON')"
    added = cashcode(
        "mcp", "add", "chatty", "--command", sys.executable, "-c", script, env=env, cwd=home, stdin="y\n"
    )
    assert added.returncode == 0, added.stderr
    tools = cashcode("mcp", "tools", "chatty", env=env, cwd=home, timeout=120)
    assert tools.returncode == 1
    assert tools.stderr.strip().splitlines() == [
        "cashcode: error: the program did not answer as an MCP server (Connection closed); "
        "check that it is an MCP server"
    ]
    assert "Traceback" not in tools.stderr


def _flags(help_text: str) -> set[str]:
    return {word.rstrip(",") for word in help_text.split() if word.startswith("--")}


def test_each_commands_help_lists_only_the_flags_it_takes(home: Path) -> None:
    env = base_env(home)
    models = cashcode("models", "--help", env=env, cwd=home)
    assert models.returncode == 0
    assert _flags(models.stdout) == {"--help", "--api-mode", "--base-url", "--provider"}
    ask = cashcode("ask", "--help", env=env, cwd=home)
    assert {"--model", "--stream", "--max-iterations", "--approval-mode"} <= _flags(ask.stdout)
