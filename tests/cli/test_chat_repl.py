"""`cashcode chat` behaves like a REPL at a real terminal (a pty; issue 25 item 8): the banner
names provider and model, /help is answered locally, Ctrl-C stops an answer and the chat goes
on, Ctrl-C twice at an empty prompt leaves with the --resume id, a spinner shows while waiting,
Markdown is rendered — and none of that happens when the output is piped."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import cashcode
from tests.cli.pty_app import on_pty
from tests.cli.test_chat_line_editing import READY, Terminal

HANG_S = 60  # a signalled process may take this long to end: a hang check, not a speed check

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX-only")

SLOW = {"text": "SLOW " + "tick " * 400, "chunk_size": 5, "delay_s": 0.1}
MARKDOWN = "# Heading One\n\nSome **bold words** and a list:\n\n- first item\n- second item\n"


def _start_chat(
    env: dict[str, str], cwd: Path
) -> AbstractContextManager[tuple[subprocess.Popen[bytes], Terminal]]:
    return on_pty(["chat"], {**env, "TERM": "xterm", "COLUMNS": "100"}, cwd)


def _plain(data: bytes) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", data.decode("utf-8", "replace"))


def test_help_banner_ctrl_c_and_leaving(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script(SLOW, {"text": "ANSWER-AFTER-STOP"})
    with _start_chat(env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        banner = _plain(term.output)
        assert "127.0.0.1" in banner and "model fake-model" in banner and "/help" in banner
        term.type(b"/help\r")
        at = term.wait_for(b"never sent to the model", at)
        at = term.wait_for(READY, at)
        term.type(b"/nosuch\r")
        at = term.wait_for(b"Unknown command /nosuch", at)
        at = term.wait_for(READY, at)
        assert fake_llm.model_requests() == []  # neither reached the model

        term.type(b"talk slowly\r")
        at = term.wait_for(b"tick", at)
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends for Ctrl-C during an answer
        at = term.wait_for(b"Stopped.", at)
        at = term.wait_for(READY, at)
        assert proc.poll() is None  # still chatting
        term.type(b"and now?\r")
        at = term.wait_for(b"ANSWER-AFTER-STOP", at)
        at = term.wait_for(READY, at)

        term.type(b"typed but not sent\x03")  # Ctrl-C clears a typed line (the same prompt)
        term.type(b"\x03")  # at an empty prompt: a hint …
        at = term.wait_for(b"Ctrl-C again", at)
        at = term.wait_for(READY, at)
        term.type(b"\x03")  # … and the second one in a row leaves
        assert proc.wait(timeout=HANG_S) == 0
        tail = _plain(term.output[at:])
        assert "cashcode chat --resume " in tail
    sent = [r.body["messages"][-1]["content"] for r in fake_llm.model_requests()]
    assert sent == ["talk slowly", "and now?"]
    history = [r.body["messages"] for r in fake_llm.model_requests()][-1]
    assert any(m["role"] == "assistant" and "SLOW" in (m.get("content") or "") for m in history)


def test_a_terminal_gets_a_spinner_and_rendered_markdown(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": MARKDOWN, "hang_s": 1.0}, {"text": "bye"})
    with _start_chat(env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"show markdown\r")
        at = term.wait_for(b"Thinking", at)  # the spinner, while the model is silent
        at = term.wait_for(b"second item", at)
        at = term.wait_for(READY, at)
        shown = _plain(term.output)
        assert "Heading One" in shown and "bold words" in shown
        assert "**bold words**" not in shown and "# Heading One" not in shown  # rendered, not raw
        assert "•" in shown or "●" in shown  # list bullets
        term.type(b"/exit\r")
        assert proc.wait(timeout=HANG_S) == 0


def test_piped_output_stays_the_plain_answer(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": MARKDOWN, "hang_s": 0.5})
    done = cashcode("ask", "show markdown", env=env, cwd=home / "ws")
    assert done.returncode == 0, done.stderr
    assert done.stdout == MARKDOWN.rstrip("\n") + "\n" or done.stdout == MARKDOWN + "\n"
    assert "Thinking" not in done.stderr and "\x1b" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("command", "takes", "not_taken"),
    [
        (["ask"], {"--model", "--workspace", "--stream", "--approval-mode"}, set()),
        (
            ["models"],
            {"--provider", "--base-url"},
            {"--model", "--workspace", "--max-iterations", "--stream"},
        ),
        (["dream"], {"--model", "--provider", "--now"}, {"--workspace", "--max-iterations", "--no-stream"}),
    ],
)
def test_each_commands_help_lists_only_its_own_flags(
    env: dict[str, str], home: Path, command: list[str], takes: set[str], not_taken: set[str]
) -> None:
    shown = cashcode(*command, "--help", env=env, cwd=home / "ws")
    assert shown.returncode == 0
    flags = set(re.findall(r"--[a-z][a-z-]+", shown.stdout))
    assert takes <= flags and not (not_taken & flags), flags


def test_ask_at_a_terminal_spins_and_renders(env: dict[str, str], home: Path, fake_llm: Any) -> None:
    fake_llm.script({"text": MARKDOWN, "hang_s": 1.0})
    terminal_env = {**env, "TERM": "xterm", "COLUMNS": "100"}
    with on_pty(["ask", "show markdown"], terminal_env, home / "ws") as (proc, term):
        at = term.wait_for(b"Thinking", 0)
        term.wait_for(b"second item", at)
        assert proc.wait(timeout=HANG_S) == 0
    shown = _plain(term.output)
    assert "bold words" in shown and "**bold words**" not in shown


@pytest.mark.parametrize("signal_number", [signal.SIGHUP, signal.SIGTERM])
def test_closing_the_terminal_of_an_idle_chat_leaves_no_empty_chat(
    env: dict[str, str], home: Path, fake_llm: Any, signal_number: int
) -> None:
    # Issue 40 item 5: the chat was created at start, so a closed terminal left "(untitled)".
    with _start_chat(env, home / "ws") as (proc, term):
        term.wait_for(READY, 0)
        os.killpg(proc.pid, signal_number)
        proc.wait(timeout=HANG_S)
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() in ("", "No chats yet.") and "(untitled)" not in listed.stdout
    # A chat that got its first answer is kept (and resumable) as before.
    fake_llm.script({"text": "KEPT ANSWER"})
    with _start_chat(env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"keep me\r")
        at = term.wait_for(b"KEPT ANSWER", at)
        term.wait_for(READY, at)
        os.killpg(proc.pid, signal_number)
        proc.wait(timeout=HANG_S)
    listed = cashcode("sessions", "list", env=env, cwd=home / "ws")
    assert len(listed.stdout.splitlines()) == 1 and "keep me" in listed.stdout
