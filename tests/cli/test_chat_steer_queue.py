"""`cashcode chat` at a real terminal (a pty), issue 35 item 4: a line typed while an answer
streams is queued and sent after it, in order; `/steer TEXT` reaches the model inside the
running answer; Ctrl-C stops and gives the queued lines back to the prompt."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_chat_line_editing import READY
from tests.cli.test_chat_repl import _plain, _start_chat

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX-only")

# Long enough that the lines below are typed while it streams (the test waits for its first
# words, then types at once).
SLOW = {"text": "SLOW " + "tick " * 60, "chunk_size": 5, "delay_s": 0.1}


def test_lines_typed_while_an_answer_streams_are_queued_and_steer_reaches_the_same_turn(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(SLOW, {"text": "STEERED-ANSWER"}, {"text": "QUEUED-ONE"}, {"text": "QUEUED-TWO"})
    with _start_chat(env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"talk slowly\r")
        at = term.wait_for(b"tick", at)
        term.type(b"first follow-up\r")
        term.type(b"/steer use metric units\r")
        term.type(b"second follow-up\r")
        at = term.wait_for(b"2 waiting", at)
        at = term.wait_for(b"steer: use metric units", at)
        at = term.wait_for(b"STEERED-ANSWER", at)
        at = term.wait_for(b"QUEUED-ONE", at)
        at = term.wait_for(b"QUEUED-TWO", at)
        term.wait_for(READY, at)
        term.type(b"\x04")
        assert proc.wait(timeout=30) == 0
    requests = [r.body["messages"] for r in fake_llm.model_requests()]
    assert [(m[-1]["role"], m[-1]["content"]) for m in requests] == [
        ("user", "talk slowly"),
        ("user", "use metric units"),  # the steer, right after the answer it interrupted
        ("user", "first follow-up"),
        ("user", "second follow-up"),
    ]
    assert requests[1][-2]["role"] == "assistant" and "SLOW" in requests[1][-2]["content"]


def test_ctrl_c_gives_the_queued_lines_back_to_the_prompt(
    env: dict[str, str], home: Path, fake_llm: Any
) -> None:
    fake_llm.script(SLOW, {"text": "BACK-ANSWER"})
    with _start_chat(env, home / "ws") as (proc, term):
        at = term.wait_for(READY, 0)
        term.type(b"talk slowly\r")
        at = term.wait_for(b"tick", at)
        term.type(b"later one\r")
        at = term.wait_for(b"1 waiting", at)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C during the answer: Stop
        at = term.wait_for(b"1 queued message(s) not sent", at)
        at = term.wait_for(READY, at)
        term.wait_for(b"later one", at)  # back in the prompt, to edit or send
        term.type(b" please\r")
        at = term.wait_for(b"BACK-ANSWER", at)
        term.wait_for(READY, at)
        term.type(b"\x04")
        assert proc.wait(timeout=30) == 0
    sent = [r.body["messages"][-1]["content"] for r in fake_llm.model_requests()]
    assert sent == ["talk slowly", "later one please"]
    assert "(queued) >" not in _plain(term.output)  # nothing was sent behind the user's back
