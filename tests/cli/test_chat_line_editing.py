"""`cashcode chat` at a real terminal (a pty): line editing, history and multi-line input."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX-only")

CPR_REQUEST = b"\x1b[6n"
READY = b"\x1b[?2004h"  # the editor switches bracketed paste on whenever a prompt starts


class Terminal:
    """The master side of a pty: collects output and answers cursor-position requests."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.output = b""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output += data
            if CPR_REQUEST in data:
                os.write(self.fd, b"\x1b[1;1R")

    def wait_for(self, needle: bytes, start: int, limit: float = 30.0) -> int:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            with self._lock:
                found = self.output.find(needle, start)
            if found >= 0:
                return found + len(needle)
            time.sleep(0.02)
        raise AssertionError(f"{needle!r} did not appear; output so far: {self.output[start:]!r}")

    def type(self, data: bytes) -> None:
        os.write(self.fd, data)


def test_chat_at_a_terminal_edits_recalls_and_takes_multi_line_messages(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script({"text": "ANSWER-ONE"}, {"text": "ANSWER-TWO"}, {"text": "ANSWER-THREE"})
    from tests.cli.pty_app import on_pty  # it imports Terminal from here

    with on_pty(["chat"], {**env, "TERM": "xterm"}, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"helo\x1b[Dl\r")  # Left arrow, insert: "helo" becomes "hello"
        at = term.wait_for(b"ANSWER-ONE", at)
        at = term.wait_for(READY, at)
        term.type(b"\x1b[A\r")  # Up recalls "hello"
        at = term.wait_for(b"ANSWER-TWO", at)
        at = term.wait_for(READY, at)
        term.type(b"first\x1b\rsecond\r")  # Esc Enter inserts a newline; Enter sends
        at = term.wait_for(b"ANSWER-THREE", at)
        term.wait_for(READY, at)
        term.type(b"\x04")  # Ctrl-D leaves
        assert proc.wait(timeout=30) == 0
    sent = [r.body["messages"][-1]["content"] for r in fake_llm.model_requests()]
    assert sent == ["hello", "hello", "first\nsecond"]
    assert (home / "data" / "cli-history").exists()
